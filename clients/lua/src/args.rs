//! Checking what a script passes: every bad argument becomes a message naming the function,
//! the argument and what was expected, returned to the Lua layer as `nil, message`.

use std::time::Duration;

use mlua::{IntoLuaMulti, Lua, MultiValue, Result, Table, Value};
use punctual::{MissedTickPolicy, Strategy};

/// A checked argument, or the message the Lua layer raises.
pub type Checked<T> = std::result::Result<T, String>;

/// The longest time accepted: `i64::MAX` nanoseconds, about 292 years.
pub const MAX_MS: f64 = 9_223_372_036_854.0;

/// What a core function hands back: its results, or `nil, message`.
pub fn reply(lua: &Lua, result: Checked<impl IntoLuaMulti>) -> Result<MultiValue> {
    match result {
        Ok(values) => values.into_lua_multi(lua),
        Err(message) => (Value::Nil, message).into_lua_multi(lua),
    }
}

/// A number as a message shows it: Lua's `%.14g`, more or less (Rust's `{}` writes every
/// digit of 1e300).
pub fn shown(n: f64) -> String {
    if n != 0.0 && !(1e-4..1e15).contains(&n.abs()) {
        format!("{n:e}")
    } else {
        format!("{n}")
    }
}

/// A Lua number, without the string coercion Lua itself would apply.
pub fn number(func: &str, name: &str, value: &Value) -> Checked<f64> {
    match value {
        Value::Integer(i) => Ok(*i as f64),
        Value::Number(n) => Ok(*n),
        other => Err(format!(
            "{func}: bad argument '{name}' (a number expected, got {})",
            type_of(other)
        )),
    }
}

/// Milliseconds as a finite, non-negative number of at most [`MAX_MS`].
pub fn millis_number(func: &str, name: &str, value: &Value) -> Checked<f64> {
    let ms = number(func, name, value)?;
    if ms.is_nan() {
        return Err(format!(
            "{func}: bad argument '{name}' (milliseconds expected, got NaN)"
        ));
    }
    if ms < 0.0 {
        return Err(format!(
            "{func}: bad argument '{name}' (0 ms or more expected, got {})",
            shown(ms)
        ));
    }
    if ms > MAX_MS {
        return Err(format!(
            "{func}: bad argument '{name}' (at most {MAX_MS} ms, about 292 years, expected; got {})",
            shown(ms)
        ));
    }
    Ok(ms)
}

/// Milliseconds as a `Duration`, rounded up to the nanosecond so that no wait is shorter
/// than asked.
pub fn millis(func: &str, name: &str, value: &Value) -> Checked<Duration> {
    let ms = millis_number(func, name, value)?;
    Ok(Duration::from_nanos(crate::clock::ceil_nanos(ms)))
}

/// A whole number in `min..=max`.
pub fn whole(func: &str, name: &str, value: &Value, min: u64, max: u64) -> Checked<u64> {
    let n = number(func, name, value)?;
    if n.is_nan() || n.fract() != 0.0 || n < min as f64 || n > max as f64 {
        return Err(format!(
            "{func}: bad argument '{name}' (a whole number from {min} to {max} expected, got {})",
            shown(n)
        ));
    }
    Ok(n as u64)
}

/// A strategy name; `nil` is the default given.
pub fn strategy(func: &str, value: &Value, default: Strategy) -> Checked<Strategy> {
    match value {
        Value::Nil => Ok(default),
        Value::String(s) => s
            .to_string_lossy()
            .parse()
            .map_err(|e| format!("{func}: bad argument 'strategy' ({e})")),
        other => Err(format!(
            "{func}: bad argument 'strategy' (\"native\", \"hybrid\" or \"spin\" expected, got {})",
            type_of(other)
        )),
    }
}

/// A missed-tick policy name; `nil` is `skip`, the library's default.
pub fn policy(func: &str, value: &Value) -> Checked<MissedTickPolicy> {
    let expected = "\"skip\", \"burst\" or \"delay\" expected";
    match value {
        Value::Nil => Ok(MissedTickPolicy::default()),
        Value::String(s) => match s.to_string_lossy().as_str() {
            "skip" => Ok(MissedTickPolicy::Skip),
            "burst" => Ok(MissedTickPolicy::Burst),
            "delay" => Ok(MissedTickPolicy::Delay),
            other => Err(format!(
                "{func}: bad argument 'policy' ({expected}, got \"{other}\")"
            )),
        },
        other => Err(format!(
            "{func}: bad argument 'policy' ({expected}, got {})",
            type_of(other)
        )),
    }
}

/// An options table (or `nil`), every key one of `allowed`: a misspelt key is an error, not
/// an option silently left at its default.
pub fn options(func: &str, value: &Value, allowed: &[&str]) -> Checked<Option<Table>> {
    let table = match value {
        Value::Nil => return Ok(None),
        Value::Table(t) => t.clone(),
        other => {
            return Err(format!(
                "{func}: bad argument 'options' (a table expected, got {})",
                type_of(other)
            ))
        }
    };
    for pair in table.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| format!("{func}: bad argument 'options' ({e})"))?;
        let known = match &key {
            Value::String(s) => allowed.contains(&s.to_string_lossy().as_str()),
            _ => false,
        };
        if !known {
            let shown = match &key {
                Value::String(s) => format!("'{}'", s.to_string_lossy()),
                other => format!("a {} key", type_of(other)),
            };
            return Err(format!(
                "{func}: unknown option {shown} (known: {})",
                allowed.join(", ")
            ));
        }
    }
    Ok(Some(table))
}

/// The value of `key` in an options table, `nil` when there is none.
pub fn field(table: &Option<Table>, key: &str) -> Value {
    table
        .as_ref()
        .and_then(|t| t.raw_get::<Value>(key).ok())
        .unwrap_or(Value::Nil)
}

/// Lua's name for a value's type, as `type()` gives it.
pub fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::LightUserData(_) | Value::UserData(_) => "userdata",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "value",
    }
}
