//! `sleep(ms)`, `sleep_until(t)` on this thread's hybrid sleeper, and `sleeper(strategy)` for
//! a sleeper of one's own. Each returns its lateness in milliseconds.

use mlua::{Lua, MultiValue, Result, Table, UserData, UserDataMethods, Value};
use punctual::{Sleeper, Strategy};

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

fn sleeper(lua: &Lua, strategy: Value) -> Result<MultiValue> {
    match args::strategy("punctual.sleeper", &strategy, Strategy::Hybrid) {
        Ok(s) => reply(lua, Ok(lua.create_userdata(LuaSleeper(Sleeper::new(s)))?)),
        Err(message) => reply(lua, Err::<(), _>(message)),
    }
}

pub fn register(lua: &Lua, core: &Table) -> Result<()> {
    core.set("sleep", lua.create_function(sleep)?)?;
    core.set("sleep_until", lua.create_function(sleep_until)?)?;
    core.set("sleeper", lua.create_function(sleeper)?)?;
    Ok(())
}
