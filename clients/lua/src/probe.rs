//! What the OS sells: `probe()` is the library's [`punctual::quantum::probe`], the one
//! timing loop and verdict every client shares; `mid_band` and `cheat_sheet` are its
//! arithmetic, in milliseconds.
//!
//! The plain sleep timed is the OS's, [`quantum::PLAIN_SLEEP`]: Win32 `Sleep` on Windows, the
//! call behind Cheat Engine's `sleep` (not `std::thread::sleep`, a high-resolution waitable
//! timer there since Windows 10 1803 and Rust 1.75, which would show no tick),
//! `std::thread::sleep` elsewhere. Or the host's own sleep when the script passes it: then
//! the host's sleep is timed on `punctual.now()`'s clock, or on the script's own clock
//! (`clock`, milliseconds) when it passes one too.

use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use mlua::{Function, Lua, MultiValue, Result, Table, Value};
use punctual::quantum::{self, Probe};

use crate::args::{self, reply, Checked};
use crate::clock;

const FUNC: &str = "punctual.probe";

/// The longest quantum the cheat sheet takes: a minute.
const MAX_QUANTUM_MS: f64 = 60_000.0;

/// Runs the library's probe on the host's sleep, or on the OS's plain sleep without one;
/// on the host's clock when it passes one.
fn run(
    host_sleep: Option<&Function>,
    host_clock: Option<&Function>,
    samples: NonZeroU32,
) -> Checked<Probe> {
    let start = Instant::now();
    let now = || match host_clock {
        Some(f) => {
            let reading = f
                .call::<Value>(())
                .map_err(|e| format!("{FUNC}: the clock function failed: {e}"))?;
            args::millis(FUNC, "clock's reading", &reading)
        }
        None => Ok(start.elapsed()),
    };
    match host_sleep {
        Some(f) => quantum::probe_on(samples, now, |ms| {
            f.call::<()>(ms)
                .map_err(|e| format!("{FUNC}: the sleep function failed: {e}"))
        }),
        None if host_clock.is_some() => Err(format!(
            "{FUNC}: bad argument 'clock' (it times the script's own 'sleep', which is missing)"
        )),
        None => Ok(quantum::probe(samples)),
    }
}

/// An optional function option, or a clear error naming what it is for.
fn function_option(options: &Option<Table>, name: &str, what: &str) -> Checked<Option<Function>> {
    match args::field(options, name) {
        Value::Nil => Ok(None),
        Value::Function(f) => Ok(Some(f)),
        other => Err(format!(
            "{FUNC}: bad argument '{name}' ({what} expected, got {})",
            args::type_of(&other)
        )),
    }
}

fn verdict(lua: &Lua, options: &Value) -> Checked<Result<Table>> {
    let options = args::options(FUNC, options, &["sleep", "clock", "samples"])?;
    let host_sleep = function_option(&options, "sleep", "a function taking milliseconds")?;
    let host_clock = function_option(&options, "clock", "a function returning milliseconds")?;
    let samples = match args::field(&options, "samples") {
        Value::Nil => quantum::DEFAULT_SAMPLES,
        n => NonZeroU32::new(args::whole(FUNC, "samples", &n, 1, 1000)? as u32)
            .unwrap_or(quantum::DEFAULT_SAMPLES),
    };
    let probe = run(host_sleep.as_ref(), host_clock.as_ref(), samples)?;
    Ok((|| {
        let table = lua.create_table()?;
        table.set("sleep", if host_sleep.is_some() { "host" } else { "os" })?;
        table.set(
            "primitive",
            host_sleep.is_none().then_some(quantum::PLAIN_SLEEP),
        )?;
        table.set("quantized", probe.quantum.is_some())?;
        table.set("quantum", probe.quantum.map(clock::duration_ms))?;
        table.set("floor", clock::duration_ms(probe.floor))?;
        table.set("overshoot", probe.overshoot.map(clock::duration_ms))?;
        let rows = lua.create_table()?;
        for (i, cost) in probe.costs.iter().enumerate() {
            let row = lua.create_table()?;
            row.set("request", clock::duration_ms(cost.request))?;
            row.set("cost", clock::duration_ms(cost.mean))?;
            rows.raw_set(i + 1, row)?;
        }
        table.set("costs", rows)?;
        Ok(table)
    })())
}

fn probe(lua: &Lua, options: Value) -> Result<MultiValue> {
    match verdict(lua, &options) {
        Ok(table) => reply(lua, Ok(table?)),
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

fn quantum_arg(func: &str, value: &Value) -> Checked<Duration> {
    let q = args::millis(func, "quantum", value)?;
    if q.is_zero() || clock::duration_ms(q) > MAX_QUANTUM_MS {
        return Err(format!(
            "{func}: bad argument 'quantum' (more than 0 and at most {MAX_QUANTUM_MS} ms expected, got {})",
            clock::duration_ms(q)
        ));
    }
    Ok(q)
}

/// `mid_band(quantum_ms, k)`: `round(q * k - q / 2)`.
fn mid_band(lua: &Lua, (q, k): (Value, Value)) -> Result<MultiValue> {
    const F: &str = "punctual.mid_band";
    let request = quantum_arg(F, &q).and_then(|q| {
        let k = args::whole(F, "k", &k, 1, 1_000_000)? as u32;
        quantum::mid_band_ms(q, k).ok_or_else(|| format!("{F}: no band {k}"))
    });
    reply(lua, request)
}

/// `cheat_sheet(quantum_ms [, bands])`: one row per band, `{ k, request, actual, rate_hz }`.
fn cheat_sheet(lua: &Lua, (q, bands): (Value, Value)) -> Result<MultiValue> {
    const F: &str = "punctual.cheat_sheet";
    let checked = quantum_arg(F, &q).and_then(|q| {
        let bands = match bands {
            Value::Nil => 10,
            n => args::whole(F, "bands", &n, 1, 1000)?,
        };
        Ok((q, bands as u32))
    });
    let (q, bands) = match checked {
        Ok(v) => v,
        Err(message) => return reply(lua, Err::<(), _>(message)),
    };
    let rows = lua.create_table()?;
    for band in quantum::cheat_sheet(q, bands) {
        let row = lua.create_table()?;
        row.set("k", band.k)?;
        row.set("request", band.request_ms)?;
        row.set("actual", clock::duration_ms(band.cost))?;
        row.set("rate_hz", band.rate_hz())?;
        rows.raw_set(band.k, row)?;
    }
    reply(lua, Ok(rows))
}

fn timer_info(lua: &Lua, (): ()) -> Result<Table> {
    let info = punctual::timer_info();
    let table = lua.create_table()?;
    table.set("mechanism", info.mechanism)?;
    table.set("high_resolution", info.high_resolution)?;
    table.set("resolution", info.resolution.map(clock::duration_ms))?;
    table.set("timer_slack", info.timer_slack.map(clock::duration_ms))?;
    table.set("degraded", info.degraded)?;
    Ok(table)
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("probe", lua.create_function(probe)?)?;
    core.set("mid_band", lua.create_function(mid_band)?)?;
    core.set("cheat_sheet", lua.create_function(cheat_sheet)?)?;
    core.set("timer_info", lua.create_function(timer_info)?)?;
    Ok(())
}
