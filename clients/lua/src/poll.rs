//! `deadline(ms)` and the poll loop, `Poller` underneath: the Lua layer hands it a guarded
//! condition (which never raises: it answers `nil` for "not yet", `true` for done and `false`
//! for failed, keeping the values itself) and a guarded pump (the one `core.pump` chose),
//! and raises what comes back.

use std::time::Instant;

use mlua::{Function, Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};
use punctual::{Deadline, PollError, Poller, Sleeper, Strategy};

use crate::args::{self, reply, Checked};
use crate::{clock, pump};

/// A `Deadline` held by Lua.
#[derive(Debug)]
struct LuaDeadline(Deadline);

impl UserData for LuaDeadline {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("remaining", |_, this, ()| {
            Ok(clock::duration_ms(this.0.remaining()))
        });
        methods.add_method("passed", |_, this, ()| Ok(this.0.has_passed()));
        methods.add_method("at", |_, this, ()| Ok(this.0.instant().map(clock::to_ms)));
    }
}

fn deadline(lua: &Lua, ms: Value) -> Result<MultiValue> {
    match args::millis("punctual.deadline", "ms", &ms) {
        Ok(after) => reply(
            lua,
            Ok(lua.create_userdata(LuaDeadline(Deadline::after(after)))?),
        ),
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

/// The checked options of one poll loop.
struct Plan {
    deadline: Deadline,
    step: std::time::Duration,
    strategy: Strategy,
}

const FUNC: &str = "punctual.poll_until";

/// The options `poll_until` takes; the pump's (`pump`, `before_sleep`) are the Lua layer's,
/// resolved by `core.pump` before the call.
const OPTIONS: [&str; 5] = ["timeout", "step", "strategy", pump::KEYS[0], pump::KEYS[1]];

fn plan(options: &Value, start: Instant) -> Checked<Plan> {
    let options = args::options(FUNC, options, &OPTIONS)?;
    // Optional, as in every other client: left out, the loop polls until the condition
    // holds or raises, as a loop with no deadline does.
    let timeout = match args::field(&options, "timeout") {
        Value::Nil => None,
        timeout => Some(args::millis(FUNC, "timeout", &timeout)?),
    };
    let step = match args::field(&options, "step") {
        Value::Nil => Poller::DEFAULT_STEP,
        step => args::millis(FUNC, "step", &step)?,
    };
    let strategy = args::strategy(FUNC, &args::field(&options, "strategy"), Strategy::Native)?;
    Ok(Plan {
        deadline: timeout
            .and_then(|timeout| start.checked_add(timeout))
            .map_or_else(Deadline::never, Deadline::at),
        step,
        strategy,
    })
}

/// `core.poll_until(condition, pump, options)`: `"done" | "timeout" | "failed", elapsed_ms,
/// polls`, or `nil, message` for bad options.
fn poll_until(lua: &Lua, (condition, pump, options): (Value, Value, Value)) -> Result<MultiValue> {
    let start = Instant::now();
    let plan = match plan(&options, start) {
        Ok(plan) => plan,
        Err(message) => return reply(lua, Err::<(), _>(message)),
    };
    let Value::Function(condition) = condition else {
        let got = args::type_of(&condition);
        return reply(
            lua,
            Err::<(), _>(format!(
                "{FUNC}: bad argument 'condition' (a function expected, got {got})"
            )),
        );
    };
    let pump: Option<Function> = match pump {
        Value::Function(f) => Some(f),
        _ => None,
    };
    let mut polls = 0u64;
    let outcome = Poller::new(plan.deadline)
        .step(plan.step)
        .with_sleeper(Sleeper::new(plan.strategy))
        .before_sleep(|| {
            if let Some(pump) = &pump {
                // The guard keeps the pump's failure for the next poll, which reports it.
                let _ = pump.call::<()>(());
            }
        })
        .until(|| {
            polls += 1;
            match condition.call::<Value>(()) {
                Ok(Value::Nil) => Ok(None),
                Ok(Value::Boolean(true)) => Ok(Some(())),
                Ok(_) => Err(None),
                Err(e) => Err(Some(e)),
            }
        });
    let elapsed_ms = clock::duration_ms(start.elapsed());
    match outcome {
        Ok(()) => reply(lua, Ok(("done", elapsed_ms, polls))),
        // From the call, as for the other outcomes: the deadline was set then, so a timeout
        // never reads less than the timeout asked.
        Err(PollError::TimedOut { polls, .. }) => reply(lua, Ok(("timeout", elapsed_ms, polls))),
        Err(PollError::Failed(None)) => reply(lua, Ok(("failed", elapsed_ms, polls))),
        Err(PollError::Failed(Some(e))) => Err(e),
    }
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("deadline", lua.create_function(deadline)?)?;
    core.set("poll_until", lua.create_function(poll_until)?)?;
    Ok(())
}
