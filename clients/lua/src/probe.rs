//! What the OS sells: `probe()` times a plain sleep back to back, and the library's
//! [`punctual::quantum`] reads the verdict; `mid_band` and `cheat_sheet` are its arithmetic.
//!
//! The plain sleep is the OS's, [`sys::plain_sleep`]: Win32 `Sleep` on Windows, the call
//! behind Cheat Engine's `sleep` (not `std::thread::sleep`, a high-resolution waitable timer
//! there since Windows 10 1803 and Rust 1.75, which would show no tick), `std::thread::sleep`
//! elsewhere. Or the host's own sleep when the script passes it: then the host's sleep is
//! timed with this module's clock, a finer ruler than the host may have.

use std::time::{Duration, Instant};

use mlua::{Function, Lua, MultiValue, Result, Table, Value};
use punctual::quantum;

use crate::args::{self, reply, Checked};
use crate::{clock, sys};

/// The requests timed, in milliseconds: the seed's table, 15 and 16 straddling a Windows tick.
const REQUESTS_MS: [u32; 8] = [1, 2, 5, 10, 15, 16, 20, 30];

const FUNC: &str = "punctual.probe";

/// The longest quantum the cheat sheet takes: a minute.
const MAX_QUANTUM_MS: f64 = 60_000.0;

/// The mean back-to-back cost of each request, and the least any one sleep cost.
struct Costs {
    means: Vec<(Duration, Duration)>,
    floor: Duration,
}

fn time_sleeps(host_sleep: Option<&Function>, samples: u64) -> Checked<Costs> {
    let mut means = Vec::with_capacity(REQUESTS_MS.len());
    let mut floor = Duration::MAX;
    for &request_ms in &REQUESTS_MS {
        let request = Duration::from_millis(request_ms.into());
        let mut total = Duration::ZERO;
        // One sleep unmeasured first, so that every measured one starts where the last woke
        // (on a tick edge, where sleeps are quantised), as back-to-back sleeps do.
        for sample in 0..=samples {
            let start = Instant::now();
            match host_sleep {
                Some(f) => f
                    .call::<()>(request_ms)
                    .map_err(|e| format!("{FUNC}: the sleep function failed: {e}"))?,
                None => sys::plain_sleep(request_ms),
            }
            let cost = start.elapsed();
            if sample > 0 {
                floor = floor.min(cost);
                total += cost;
            }
        }
        means.push((request, total / samples as u32));
    }
    Ok(Costs { means, floor })
}

fn verdict(lua: &Lua, options: &Value) -> Checked<Result<Table>> {
    let options = args::options(FUNC, options, &["sleep", "samples"])?;
    let host_sleep = match args::field(&options, "sleep") {
        Value::Nil => None,
        Value::Function(f) => Some(f),
        other => {
            return Err(format!(
                "{FUNC}: bad argument 'sleep' (a function taking milliseconds expected, got {})",
                args::type_of(&other)
            ))
        }
    };
    let samples = match args::field(&options, "samples") {
        Value::Nil => 5,
        n => args::whole(FUNC, "samples", &n, 1, 1000)?,
    };
    let costs = time_sleeps(host_sleep.as_ref(), samples)?;
    let quantum = quantum::detect(&costs.means);
    let overshoot = quantum.is_none().then(|| {
        let mut over: Vec<Duration> = costs
            .means
            .iter()
            .map(|&(request, cost)| cost.saturating_sub(request))
            .collect();
        over.sort_unstable();
        over[over.len() / 2]
    });
    Ok((|| {
        let table = lua.create_table()?;
        table.set("sleep", if host_sleep.is_some() { "host" } else { "os" })?;
        table.set(
            "primitive",
            host_sleep.is_none().then_some(sys::PLAIN_SLEEP),
        )?;
        table.set("quantized", quantum.is_some())?;
        table.set("quantum", quantum.map(clock::duration_ms))?;
        table.set("floor", clock::duration_ms(costs.floor))?;
        table.set("overshoot", overshoot.map(clock::duration_ms))?;
        let rows = lua.create_table()?;
        for (i, &(request, cost)) in costs.means.iter().enumerate() {
            let row = lua.create_table()?;
            row.set("request", clock::duration_ms(request))?;
            row.set("cost", clock::duration_ms(cost))?;
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
    for k in 1..=bands {
        let actual = q * k;
        let row = lua.create_table()?;
        row.set("k", k)?;
        row.set("request", quantum::mid_band_ms(q, k))?;
        row.set("actual", clock::duration_ms(actual))?;
        row.set("rate_hz", 1.0 / actual.as_secs_f64())?;
        rows.raw_set(k, row)?;
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
