//! `sleep(ms)`, `sleep_until(t)` on this thread's hybrid sleeper, and `sleeper(strategy)` for
//! a sleeper of one's own. Each returns its lateness in milliseconds.

use std::cell::RefCell;
use std::time::Duration;

use mlua::{Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};
use punctual::{Sleeper, Strategy, WayBack};

use crate::args::{self, reply};
use crate::clock;

/// A `Sleeper` held by Lua.
#[derive(Debug)]
struct LuaSleeper(Sleeper);

impl UserData for LuaSleeper {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("sleep", |lua, this, ms: Value| {
            let wait = args::millis("sleeper:sleep", "ms", &ms);
            reply(
                lua,
                wait.map(|d| clock::duration_ms(this.0.sleep(d).lateness())),
            )
        });
        methods.add_method_mut("sleep_until", |lua, this, t: Value| {
            let deadline = clock::instant("sleeper:sleep_until", "t", &t);
            reply(
                lua,
                deadline.map(|at| clock::duration_ms(this.0.sleep_until(at).lateness())),
            )
        });
        // The first part of `sleeper:sleep_until(t)` in the Lua layer, as
        // `sleep_until_near` is of `punctual.sleep_until`; a native sleeper waits to `t`
        // itself, since it spins for nothing.
        methods.add_method_mut(
            "sleep_until_near",
            |lua, this, (t, back): (Value, Value)| {
                let deadline = clock::instant("sleeper:sleep_until", "t", &t);
                let lead = match this.0.strategy() {
                    Strategy::Native => Duration::ZERO,
                    _ => lead_after(back),
                };
                reply(
                    lua,
                    deadline.map(|at| {
                        let early = at.checked_sub(lead).unwrap_or(at);
                        clock::to_ms(this.0.sleep_until(early).woke())
                    }),
                )
            },
        );
        methods.add_method("strategy", |_, this, ()| Ok(this.0.strategy().name()));
        methods.add_method("margin", |_, this, ()| {
            Ok(clock::duration_ms(this.0.margin()))
        });
    }
}

fn sleep(lua: &Lua, ms: Value) -> Result<MultiValue> {
    let wait = args::millis("punctual.sleep", "ms", &ms);
    reply(
        lua,
        wait.map(|d| clock::duration_ms(punctual::sleep(d).lateness())),
    )
}

fn sleep_until(lua: &Lua, t: Value) -> Result<MultiValue> {
    let deadline = clock::instant("punctual.sleep_until", "t", &t);
    reply(
        lua,
        deadline.map(|at| clock::duration_ms(punctual::sleep_until(at).lateness())),
    )
}

thread_local! {
    /// The way back from the core to the Lua layer's loop, learned per thread (at most
    /// `WayBack`'s default cap, 0.05 ms).
    static WAY_BACK: RefCell<WayBack> = const { RefCell::new(WayBack::new()) };
}

/// Records `back` (the Lua layer's last way back, in ms, when a finite number of at least 0)
/// and returns this thread's lead: how long before a deadline the core hands a wait over to
/// the Lua layer's loop.
pub(crate) fn lead_after(back: Value) -> Duration {
    WAY_BACK.with(|way_back| {
        let mut way_back = way_back.borrow_mut();
        // (Anything past a second is recorded as a second: the lead is capped far below.)
        let back = match back {
            Value::Number(ms) => ms,
            Value::Integer(ms) => ms as f64,
            _ => f64::NAN,
        };
        if back >= 0.0 {
            way_back.record(Duration::from_nanos(clock::ceil_nanos(back.min(1e3))));
        }
        way_back.lead()
    })
}

/// `sleep_until_near(t, back)`: the first part of `punctual.sleep_until(t)` in the Lua
/// layer. Records `back` ([`lead_after`]), sleeps on this thread's hybrid sleeper until the
/// learned way back before `t`, and returns the core's wake in ms, for the Lua layer to
/// read its own clock from there to `t`.
fn sleep_until_near(lua: &Lua, (t, back): (Value, Value)) -> Result<MultiValue> {
    let deadline = clock::instant("punctual.sleep_until", "t", &t);
    let lead = lead_after(back);
    reply(
        lua,
        deadline.map(|at| {
            let early = at.checked_sub(lead).unwrap_or(at);
            clock::to_ms(punctual::sleep_until(early).woke())
        }),
    )
}

fn sleeper(lua: &Lua, strategy: Value) -> Result<MultiValue> {
    match args::strategy("punctual.sleeper", &strategy, Strategy::Hybrid) {
        Ok(s) => reply(lua, Ok(lua.create_userdata(LuaSleeper(Sleeper::new(s)))?)),
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("sleep", lua.create_function(sleep)?)?;
    core.set("sleep_until", lua.create_function(sleep_until)?)?;
    core.set("sleep_until_near", lua.create_function(sleep_until_near)?)?;
    core.set("sleeper", lua.create_function(sleeper)?)?;
    Ok(())
}
