//! `punctual.rt`: the library's real-time controls ([`punctual::rt`]), as the C client has
//! them. The calling thread under `SCHED_FIFO` and back, its timer slack and CPU affinity,
//! `mlockall`, and the
//! `/dev/cpu_dma_latency` hold as a handle with `:release()`. A refusal is the library's
//! message, which names the fix (`CAP_SYS_NICE`, `ulimit -r`, `CAP_IPC_LOCK`, `ulimit -l`,
//! the device's permissions), after the function's name; the Lua layer raises it.

use std::time::Duration;

use mlua::{Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};
use punctual::rt::{self, DmaLatencyGuard, RtError, Scheduling};

use crate::args::{self, reply, Checked};
use crate::clock;

/// `error` as the message the Lua layer raises, naming `func`.
fn refused(func: &str, error: RtError) -> String {
    format!("{func}: {error}")
}

fn scheduling_table(lua: &Lua, scheduling: Scheduling) -> Result<Table> {
    let table = lua.create_table()?;
    table.set("policy", scheduling.policy.to_string())?;
    table.set("priority", scheduling.priority)?;
    table.set("realtime", scheduling.policy.is_realtime())?;
    Ok(table)
}

fn scheduling_reply(
    lua: &Lua,
    func: &str,
    result: std::result::Result<Scheduling, RtError>,
) -> Result<MultiValue> {
    match result {
        Ok(scheduling) => reply(lua, Ok(scheduling_table(lua, scheduling)?)),
        Err(error) => reply(lua, Err::<(), _>(refused(func, error))),
    }
}

/// A priority: a whole number a C `int` holds (the library says which it accepts).
fn priority(func: &str, value: &Value) -> Checked<i32> {
    let n = args::number(func, "priority", value)?;
    if n.fract() != 0.0 || n < f64::from(i32::MIN) || n > f64::from(i32::MAX) {
        return Err(format!(
            "{func}: bad argument 'priority' (a whole number expected, got {})",
            args::shown(n)
        ));
    }
    Ok(n as i32)
}

fn set_realtime_priority(lua: &Lua, value: Value) -> Result<MultiValue> {
    const F: &str = "punctual.rt.set_realtime_priority";
    match priority(F, &value) {
        Ok(p) => scheduling_reply(lua, F, rt::set_realtime_priority(p)),
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

fn set_normal_scheduling(lua: &Lua, (): ()) -> Result<MultiValue> {
    scheduling_reply(
        lua,
        "punctual.rt.set_normal_scheduling",
        rt::set_normal_scheduling(),
    )
}

fn current_scheduling(lua: &Lua, (): ()) -> Result<MultiValue> {
    scheduling_reply(
        lua,
        "punctual.rt.current_scheduling",
        rt::current_scheduling(),
    )
}

fn priority_range(_: &Lua, (): ()) -> Result<(i32, i32)> {
    let range = rt::priority_range();
    Ok((*range.start(), *range.end()))
}

fn done(lua: &Lua, func: &str, result: std::result::Result<(), RtError>) -> Result<MultiValue> {
    reply(lua, result.map(|()| true).map_err(|e| refused(func, e)))
}

fn lock_memory(lua: &Lua, (): ()) -> Result<MultiValue> {
    done(lua, "punctual.rt.lock_memory", rt::lock_memory())
}

fn unlock_memory(lua: &Lua, (): ()) -> Result<MultiValue> {
    done(lua, "punctual.rt.unlock_memory", rt::unlock_memory())
}

fn timer_slack(lua: &Lua, (): ()) -> Result<MultiValue> {
    const F: &str = "punctual.rt.timer_slack";
    reply(
        lua,
        rt::timer_slack()
            .map(clock::duration_ms)
            .map_err(|e| refused(F, e)),
    )
}

fn set_timer_slack(lua: &Lua, ms: Value) -> Result<MultiValue> {
    const F: &str = "punctual.rt.set_timer_slack";
    let result = args::millis(F, "slack", &ms)
        .and_then(|slack| rt::set_timer_slack(slack).map_err(|e| refused(F, e)));
    reply(lua, result.map(|()| true))
}

/// A sequence of CPU numbers from 0: `{ 0, 2 }`.
fn cpus(func: &str, value: &Value) -> Checked<Vec<usize>> {
    let Value::Table(table) = value else {
        return Err(format!(
            "{func}: bad argument 'cpus' (a table of CPU numbers expected, got {})",
            args::type_of(value)
        ));
    };
    let mut cpus = Vec::new();
    for value in table.clone().sequence_values::<Value>() {
        let value = value.map_err(|e| format!("{func}: bad argument 'cpus' ({e})"))?;
        let cpu = args::whole(func, "cpus", &value, 0, u32::MAX.into())?;
        cpus.push(cpu as usize);
    }
    Ok(cpus)
}

fn set_affinity(lua: &Lua, value: Value) -> Result<MultiValue> {
    const F: &str = "punctual.rt.set_affinity";
    let result =
        cpus(F, &value).and_then(|cpus| rt::set_affinity(&cpus).map_err(|e| refused(F, e)));
    reply(lua, result.map(|()| true))
}

fn available_cpus(lua: &Lua, (): ()) -> Result<MultiValue> {
    const F: &str = "punctual.rt.available_cpus";
    match rt::available_cpus() {
        Ok(cpus) => reply(lua, Ok(lua.create_sequence_from(cpus)?)),
        Err(error) => reply(lua, Err::<(), _>(refused(F, error))),
    }
}

/// A held `/dev/cpu_dma_latency` request; released by `release()`, or when Lua collects it.
#[derive(Debug)]
struct LuaDmaLatency {
    guard: Option<DmaLatencyGuard>,
    latency: Duration,
}

impl UserData for LuaDmaLatency {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("release", |_, this, ()| {
            this.guard = None;
            Ok(true)
        });
        methods.add_method("held", |_, this, ()| Ok(this.guard.is_some()));
        methods.add_method("latency", |_, this, ()| {
            Ok(clock::duration_ms(this.latency))
        });
    }
}

fn dma_latency(lua: &Lua, ms: Value) -> Result<MultiValue> {
    const F: &str = "punctual.rt.dma_latency";
    let guard = args::millis(F, "latency", &ms)
        .and_then(|latency| DmaLatencyGuard::new(latency).map_err(|e| refused(F, e)));
    match guard {
        Ok(guard) => {
            let latency = guard.latency();
            let handle = LuaDmaLatency {
                guard: Some(guard),
                latency,
            };
            reply(lua, Ok(lua.create_userdata(handle)?))
        }
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    let table = lua.create_table()?;
    table.set(
        "set_realtime_priority",
        lua.create_function(set_realtime_priority)?,
    )?;
    table.set(
        "set_normal_scheduling",
        lua.create_function(set_normal_scheduling)?,
    )?;
    table.set(
        "current_scheduling",
        lua.create_function(current_scheduling)?,
    )?;
    table.set("priority_range", lua.create_function(priority_range)?)?;
    table.set("timer_slack", lua.create_function(timer_slack)?)?;
    table.set("set_timer_slack", lua.create_function(set_timer_slack)?)?;
    table.set("set_affinity", lua.create_function(set_affinity)?)?;
    table.set("available_cpus", lua.create_function(available_cpus)?)?;
    table.set("lock_memory", lua.create_function(lock_memory)?)?;
    table.set("unlock_memory", lua.create_function(unlock_memory)?)?;
    table.set("dma_latency", lua.create_function(dma_latency)?)?;
    core.set("rt", table)?;
    Ok(())
}
