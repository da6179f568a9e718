//! Which pump a wait runs before each of its sleeps (`poll_until`, `wait`).
//!
//! The option is `pump`, Cheat Engine's word and the canonical one here; `before_sleep`, the
//! other clients' name for the same hook, is accepted too (not both at once). Its value is a
//! function, or `false` for no pump. Left out, the pump is Cheat Engine's own, looked up in
//! the globals at each call, as the post's feature test does: `processMessagesPaintOnly`
//! (repaints, and cannot re-enter the script), else `processMessages`, else none.
//!
//! A key whose value is `nil` is no key at all in a Lua table, so `pump =
//! processMessagesPaintOnly` on a Cheat Engine without that function cannot be told from a
//! call that left `pump` out. The default makes that harmless: it does the same lookup
//! itself, and says what it found. What cannot be a pump (`pump = true`, a string, a
//! number) is an error rather than no pump.

use mlua::{Function, Lua, MultiValue, Result, Table, Value};

use crate::args::{self, reply, Checked};

/// The option's names: the canonical one first.
pub const KEYS: [&str; 2] = ["pump", "before_sleep"];

/// Cheat Engine's pumps, in the order the default tries them.
const GLOBALS: [&str; 2] = ["processMessagesPaintOnly", "processMessages"];

/// What a pump is called in the reports: a global's name, `given` for another function,
/// `none`.
const GIVEN: &str = "given";
const NONE: &str = "none";

/// A wait's pump and its name.
#[derive(Debug)]
pub struct Pump {
    pub function: Option<Function>,
    pub name: &'static str,
}

/// The first of Cheat Engine's pumps the globals hold now, by raw lookup (a strict-mode
/// metatable on the globals must not turn the feature test into an error).
fn global(lua: &Lua) -> Pump {
    let globals = lua.globals();
    for name in GLOBALS {
        if let Ok(Value::Function(f)) = globals.raw_get::<Value>(name) {
            return Pump {
                function: Some(f),
                name,
            };
        }
    }
    Pump {
        function: None,
        name: NONE,
    }
}

/// A function's name in the reports: a Cheat Engine pump's own, else `given`.
fn name_of(lua: &Lua, function: &Function) -> &'static str {
    let globals = lua.globals();
    GLOBALS
        .into_iter()
        .find(|name| {
            matches!(globals.raw_get::<Value>(*name), Ok(Value::Function(g)) if g == *function)
        })
        .unwrap_or(GIVEN)
}

/// The pump `options` ask `func` for. Only the pump's keys are read: the caller checks the
/// options table itself (its type and its other keys).
pub fn resolve(lua: &Lua, func: &str, options: &Value) -> Checked<Pump> {
    let Value::Table(options) = options else {
        return Ok(global(lua));
    };
    let given = |key: &str| options.raw_get::<Value>(key).unwrap_or(Value::Nil);
    let (key, value) = match (given(KEYS[0]), given(KEYS[1])) {
        (Value::Nil, Value::Nil) => return Ok(global(lua)),
        (pump, Value::Nil) => (KEYS[0], pump),
        (Value::Nil, hook) => (KEYS[1], hook),
        _ => {
            return Err(format!(
                "{func}: options 'pump' and 'before_sleep' are the same hook; give one"
            ))
        }
    };
    match value {
        Value::Function(f) => Ok(Pump {
            name: name_of(lua, &f),
            function: Some(f),
        }),
        Value::Boolean(false) => Ok(Pump {
            function: None,
            name: NONE,
        }),
        other => Err(format!(
            "{func}: bad argument '{key}' (a function, or false for no pump, expected, got {})",
            shown(&other)
        )),
    }
}

/// A bad pump as the message shows it: `true` and strings by value, since `pump =
/// "processMessages"` (the name, not the function) is the likely slip.
fn shown(value: &Value) -> String {
    match value {
        Value::Boolean(true) => "true".into(),
        Value::String(s) => format!("string \"{}\"", s.to_string_lossy()),
        other => args::type_of(other).into(),
    }
}

/// `core.pump(func, options)`: `function | false, name`, or `nil, message`.
fn pump(lua: &Lua, (func, options): (String, Value)) -> Result<MultiValue> {
    let pump = resolve(lua, &func, &options).map(|p| {
        let function = p.function.map_or(Value::Boolean(false), Value::Function);
        (function, p.name)
    });
    reply(lua, pump)
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("pump", lua.create_function(pump)?)?;
    Ok(())
}
