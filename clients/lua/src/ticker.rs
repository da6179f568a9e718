//! `ticker(period_ms, options)`: a fixed grid, tick `k` due at `first + k * period` in integer
//! nanoseconds, with the library's missed-tick policies.

use mlua::{Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};
use punctual::{MissedTickPolicy, Sleeper, Strategy, Ticker};

use crate::args::{self, reply, Checked};
use crate::clock;

/// A `Ticker` held by Lua.
#[derive(Debug)]
struct LuaTicker(Ticker);

fn policy_name(policy: MissedTickPolicy) -> &'static str {
    match policy {
        MissedTickPolicy::Burst => "burst",
        MissedTickPolicy::Skip => "skip",
        MissedTickPolicy::Delay => "delay",
    }
}

impl UserData for LuaTicker {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("tick", |_, this, ()| {
            let tick = this.0.tick();
            Ok((
                tick.index(),
                clock::duration_ms(tick.lateness()),
                tick.missed(),
            ))
        });
        // The first part of `ticker:tick()` in the Lua layer: records `back`, waits until
        // the lead before the next tick (`Ticker::tick_ahead`), and returns the tick's index,
        // its deadline and the core's wake in ms, and the ticks missed before it.
        methods.add_method_mut("tick_ahead", |_, this, back: Value| {
            let tick = this.0.tick_ahead(crate::sleep::lead_after(back));
            Ok((
                tick.index(),
                clock::to_ms(tick.deadline()),
                clock::to_ms(tick.early().woke()),
                tick.missed(),
            ))
        });
        methods.add_method("next_index", |_, this, ()| Ok(this.0.next_index()));
        methods.add_method("missed", |_, this, ()| Ok(this.0.missed()));
        methods.add_method("period", |_, this, ()| {
            Ok(clock::duration_ms(this.0.period()))
        });
        methods.add_method("policy", |_, this, ()| Ok(policy_name(this.0.policy())));
        methods.add_method("deadline_of", |lua, this, index: Value| {
            let index = args::whole("ticker:deadline_of", "index", &index, 0, i64::MAX as u64);
            reply(lua, index.map(|k| this.0.deadline_of(k).map(clock::to_ms)))
        });
    }
}

const FUNC: &str = "punctual.ticker";

fn build(period: &Value, options: &Value) -> Checked<Ticker> {
    let period = args::millis(FUNC, "period", period)?;
    let options = args::options(FUNC, options, &["policy", "strategy", "first"])?;
    let policy = args::policy(FUNC, &args::field(&options, "policy"))?;
    let strategy = args::strategy(FUNC, &args::field(&options, "strategy"), Strategy::Hybrid)?;
    let ticker = match args::field(&options, "first") {
        Value::Nil => Ticker::new(period),
        first => Ticker::starting_at(clock::instant(FUNC, "first", &first)?, period),
    };
    let ticker = ticker.map_err(|e| format!("{FUNC}: bad argument 'period' ({e})"))?;
    Ok(ticker
        .with_policy(policy)
        .with_sleeper(Sleeper::new(strategy)))
}

fn ticker(lua: &Lua, (period, options): (Value, Value)) -> Result<MultiValue> {
    match build(&period, &options) {
        Ok(t) => reply(lua, Ok(lua.create_userdata(LuaTicker(t))?)),
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("ticker", lua.create_function(ticker)?)?;
    Ok(())
}
