//! `require "punctual"`: punctual's sleeps, deadlines, poll loop, ticker, sleep probe and
//! real-time controls for Lua 5.1, 5.3, 5.4, LuaJIT and Cheat Engine's Lua 5.3.
//!
//! Two layers. This crate is the core, a table of plain functions over the library that
//! check every argument and answer a bad one with `nil, message` (never a Rust panic, never a
//! Lua error of mlua's own making). `src/punctual.lua`, compiled into the module, is the
//! table a script sees: it calls the core and raises every failure with `error(..., 2)`, so
//! the message names the script's line, and it keeps the poll loop's own failures (a value
//! the condition raised, a pump that failed) as the Lua values they were. The README is the
//! module's reference.
//!
//! Every time is in milliseconds, as Cheat Engine's `sleep(n)` takes them, fractions allowed;
//! `now()` is milliseconds on the monotonic clock every deadline uses.

#![deny(missing_docs, missing_debug_implementations)]

mod args;
mod clock;
mod poll;
mod probe;
mod pump;
mod rt;
mod sleep;
mod ticker;
mod wait;

use mlua::{Lua, Result, Table, Value};

/// The Lua layer: the public table, built over the core.
const PRELUDE: &str = include_str!("punctual.lua");

/// `luaopen_punctual`: builds the core table and hands it to the Lua layer, whose table
/// `require` returns.
#[mlua::lua_module(name = "punctual")]
fn punctual_lua(lua: &Lua) -> Result<Table> {
    clock::start();
    let core = lua.create_table()?;
    sleep::register(lua, &core)?;
    clock::register(lua, &core)?;
    poll::register(lua, &core)?;
    ticker::register(lua, &core)?;
    probe::register(lua, &core)?;
    pump::register(lua, &core)?;
    rt::register(lua, &core)?;
    wait::register(lua, &core)?;
    core.set("version", env!("CARGO_PKG_VERSION"))?;
    lua.load(PRELUDE)
        .set_name("=punctual.lua")
        .call::<Table>(Value::Table(core))
}
