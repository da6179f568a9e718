-- `luarocks make` in clients/lua builds the module with cargo (Rust 1.80 or later) for the
-- Lua luarocks runs with, and installs punctual.so. Nothing is fetched for the build itself:
-- the build type is "command", which runs build.sh; cargo takes the crates from crates.io.
rockspec_format = "3.0"
package = "punctual"
version = "scm-1"
source = {
  url = "git+https://github.com/punctual-rs/punctual",
  dir = "punctual/clients/lua",
}
description = {
  summary = "Sleeps that never wake early, deadlines, a poll loop and a ticker, for Lua",
  detailed = [[
    punctual.sleep(ms) never returns before ms milliseconds (fractions allowed) and reports
    how late it woke; punctual.poll_until(condition, { timeout =, step =, pump = }) polls
    until a real deadline, with a pump before each sleep (Cheat Engine's own by default) and
    a timeout that is an error; punctual.wait(ms) is a long sleep that pumps every step and
    ends at its deadline; punctual.ticker(period) keeps a fixed grid. Lua 5.1, 5.3, 5.4 and
    LuaJIT; on Windows, Cheat Engine's Lua 5.3, 64- and 32-bit (see README.md).
  ]],
  homepage = "https://github.com/punctual-rs/punctual",
  license = "MIT OR Apache-2.0",
}
dependencies = {
  "lua >= 5.1, < 5.5",
}
build = {
  type = "command",
  build_command = [[bash build.sh "$(LUA)" build/luarocks]],
  install = {
    lib = {
      punctual = "build/luarocks/punctual.so",
    },
  },
}
