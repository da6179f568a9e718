//! `now()`: milliseconds on the monotonic clock (`std::time::Instant`) every sleep and
//! deadline uses, counted from the moment the module was first loaded in this process.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mlua::{Lua, Result, Table, Value};

use crate::args::{self, Checked, MAX_MS};

static ORIGIN: OnceLock<Instant> = OnceLock::new();

/// Fixes the origin of `now()`, once per process.
pub fn start() {
    origin();
}

fn origin() -> Instant {
    *ORIGIN.get_or_init(Instant::now)
}

/// An instant as milliseconds since the origin (negative before it).
pub fn to_ms(instant: Instant) -> f64 {
    let origin = origin();
    match instant.checked_duration_since(origin) {
        Some(after) => duration_ms(after),
        None => -duration_ms(origin - instant),
    }
}

/// Whole nanoseconds divided once, so that a time of exactly `t` ms reads back as `t`
/// (a division is correctly rounded; `as_secs_f64() * 1e3` rounds twice).
pub fn duration_ms(duration: Duration) -> f64 {
    duration.as_nanos() as f64 / 1e6
}

/// `ms` as whole nanoseconds, rounded up: never less than `ms` once read back through
/// [`duration_ms`], so that no wait ends before the time the script asked for.
pub fn ceil_nanos(ms: f64) -> u64 {
    let mut nanos = (ms * 1e6).ceil() as u64;
    while (nanos as f64) / 1e6 < ms {
        nanos += 1;
    }
    nanos
}

/// A `now()` reading back as an instant, rounded up to the nanosecond so that a wait for it
/// never ends before it. Any finite time before the origin is long past, and is taken as the
/// origin itself.
pub fn instant(func: &str, name: &str, value: &Value) -> Checked<Instant> {
    let ms = args::number(func, name, value)?;
    if !ms.is_finite() || ms > MAX_MS {
        return Err(format!(
            "{func}: bad argument '{name}' (a time from now() expected, got {})",
            args::shown(ms)
        ));
    }
    let after = Duration::from_nanos(ceil_nanos(ms.max(0.0)));
    origin().checked_add(after).ok_or_else(|| {
        format!(
            "{func}: bad argument '{name}' (too far in the future: {})",
            args::shown(ms)
        )
    })
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set(
        "now",
        lua.create_function(|_, ()| Ok(to_ms(Instant::now())))?,
    )?;
    Ok(())
}
