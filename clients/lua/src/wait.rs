//! `wait(ms, options)`: a long sleep that keeps a GUI alive, for `sleep(n)` with a large `n`.
//! The library's `Poller` underneath, with the deadline as its only condition: the pump runs
//! before every sleep of `step` (cut short at the deadline), and the wait ends once the
//! deadline has passed, never before it. The Lua layer hands it a guarded pump that answers
//! `false` when the pump raised (the error kept there), which ends the wait at the next
//! check.

use std::cell::Cell;
use std::time::{Duration, Instant};

use mlua::{Function, Lua, MultiValue, Result, Table, Value};
use punctual::{Deadline, PollError, Poller, Sleeper, Strategy};

use crate::args::{self, reply, Checked};
use crate::{clock, pump};

const FUNC: &str = "punctual.wait";

const OPTIONS: [&str; 4] = ["step", "strategy", pump::KEYS[0], pump::KEYS[1]];

/// The pump's rate unless the options say otherwise: 100 a second, the post's `sleep(10)`.
const DEFAULT_STEP: Duration = Duration::from_millis(10);

struct Plan {
    wait: Duration,
    step: Duration,
    strategy: Strategy,
}

fn plan(ms: &Value, options: &Value) -> Checked<Plan> {
    let wait = args::millis(FUNC, "ms", ms)?;
    let options = args::options(FUNC, options, &OPTIONS)?;
    let step = match args::field(&options, "step") {
        Value::Nil => DEFAULT_STEP,
        step => args::millis(FUNC, "step", &step)?,
    };
    let strategy = args::strategy(FUNC, &args::field(&options, "strategy"), Strategy::Native)?;
    Ok(Plan {
        wait,
        step,
        strategy,
    })
}

/// `core.wait(ms, pump, options)`: `"done", lateness_ms` or `"pump", elapsed_ms` (the pump
/// failed), or `nil, message` for a bad argument.
fn wait(lua: &Lua, (ms, pump, options): (Value, Value, Value)) -> Result<MultiValue> {
    let start = Instant::now();
    let plan = match plan(&ms, &options) {
        Ok(plan) => plan,
        Err(message) => return reply(lua, Err::<(), _>(message)),
    };
    let pump: Option<Function> = match pump {
        Value::Function(f) => Some(f),
        _ => None,
    };
    // A wait too long for the clock (about 292 years at most) never ends: it pumps forever.
    let end = start.checked_add(plan.wait);
    let deadline = end.map_or_else(Deadline::never, Deadline::at);
    let pump_failed = Cell::new(false);
    let outcome = Poller::new(deadline)
        .step(plan.step)
        .with_sleeper(Sleeper::new(plan.strategy))
        .before_sleep(|| {
            if let Some(pump) = &pump {
                if !matches!(pump.call::<Value>(()), Ok(Value::Boolean(true))) {
                    pump_failed.set(true);
                }
            }
        })
        .until(|| {
            if pump_failed.get() {
                Err(())
            } else if deadline.has_passed() {
                Ok(Some(()))
            } else {
                Ok(None)
            }
        });
    let now = Instant::now();
    match outcome {
        Err(PollError::Failed(())) => reply(lua, Ok(("pump", clock::duration_ms(now - start)))),
        // Done, or timed out (the poller found the deadline passed after the last check).
        _ => {
            let lateness = end.map_or(Duration::ZERO, |end| now.saturating_duration_since(end));
            reply(lua, Ok(("done", clock::duration_ms(lateness))))
        }
    }
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("wait", lua.create_function(wait)?)?;
    Ok(())
}
