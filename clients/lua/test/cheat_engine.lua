-- Cheat Engine's Lua functions, emulated, for running examples/cheat-engine/ in the tests
-- (test/cheat_engine_test.lua) under stock Lua and under Wine. What the examples call,
-- with Windows' behaviour where the Cheat Engine post shows it matters:
--
--   sleep(n)          Win32 Sleep on the default timer: ends at the first tick edge (every
--                     15.625 ms on punctual.now()'s clock) at or after n ms from now, so
--                     sleep(1) to sleep(14) cost a whole tick back to back; sleep(0) yields
--   getTickCount()    GetTickCount: whole milliseconds that move only at a tick edge
--   (`virtual_time = true`: both on the emulation's own clock, `ce.clock()`, not the real one)
--   processMessages(), processMessagesPaintOnly()
--                     count their calls (both free here); `paint_only = false` leaves the
--                     second out, as a Cheat Engine older than 7.6 or so does
--   readBytes(address, count, as_table)
--                     the bytes of the emulated memory, as numbers (a table if as_table);
--                     nil where any byte is unreadable
--   getAddressSafe(name), getCheatEngineDir()
--
-- and the other side of the post's mailbox: `ce.write_at(ms, address, byte)` has the
-- emulated DLL write a byte `ms` from now. print is captured into `ce.printed` (and still
-- printed, indented) while the emulation is installed.
local punctual = require "punctual"
local now = punctual.now

local M = { TICK = 15.625 }

local NAMES = {
  "sleep", "getTickCount", "processMessages", "processMessagesPaintOnly", "readBytes",
  "getAddressSafe", "getCheatEngineDir", "print",
}

function M.install(options)
  options = options or {}
  local tick = options.tick or M.TICK
  local ce = { memory = {}, calls = {}, printed = {}, symbols = {}, writes = {} }
  local saved = {}
  for _, name in ipairs(NAMES) do
    saved[name] = rawget(_G, name)
    ce.calls[name] = 0
  end
  local real_print = print

  local function count(name)
    ce.calls[name] = ce.calls[name] + 1
  end

  -- The DLL's writes that are due by now.
  local function apply_writes()
    local t = now()
    for i = #ce.writes, 1, -1 do
      local w = ce.writes[i]
      if w.at <= t then
        ce.memory[w.address] = w.byte
        table.remove(ce.writes, i)
      end
    end
  end

  function ce.write_at(ms, address, byte)
    ce.writes[#ce.writes + 1] = { at = now() + ms, address = address, byte = byte }
  end

  -- With `virtual_time`, sleep and getTickCount run on a clock of the emulation's own,
  -- `ce.clock()` (ms): sleep jumps it to the tick edge at once, and each getTickCount call
  -- moves it a quarter of a millisecond, as a script's polling takes time. What a test
  -- times on it does not depend on how loaded the machine is.
  local clock = now
  local virtual = 7 -- mid-tick
  if options.virtual_time then
    clock = function()
      return virtual
    end
  end
  ce.clock = clock

  local globals = {}
  function globals.sleep(ms)
    count("sleep")
    if ms > 0 then
      local edge = math.ceil((clock() + ms) / tick) * tick
      if options.virtual_time then
        virtual = edge
      else
        punctual.sleep_until(edge)
      end
    end
  end
  function globals.getTickCount()
    count("getTickCount")
    if options.virtual_time then
      virtual = virtual + 0.25
    end
    return math.floor(math.floor(clock() / tick) * tick)
  end
  function globals.processMessages()
    count("processMessages")
  end
  if options.paint_only ~= false then
    function globals.processMessagesPaintOnly()
      count("processMessagesPaintOnly")
    end
  end
  function globals.readBytes(address, n, as_table)
    count("readBytes")
    apply_writes()
    local bytes = {}
    for i = 1, n or 1 do
      local b = ce.memory[address + i - 1]
      if b == nil then
        return nil
      end
      bytes[i] = b
    end
    if as_table then
      return bytes
    end
    return (table.unpack or unpack)(bytes)
  end
  function globals.getAddressSafe(name)
    return ce.symbols[name]
  end
  function globals.getCheatEngineDir()
    return "C:\\Program Files\\Cheat Engine\\"
  end
  function globals.print(...)
    local parts = {}
    for i = 1, select("#", ...) do
      parts[i] = tostring((select(i, ...)))
    end
    local line = table.concat(parts, "\t")
    ce.printed[#ce.printed + 1] = line
    real_print("   | " .. line)
  end

  for name, f in pairs(globals) do
    _G[name] = f
  end

  function ce.uninstall()
    for _, name in ipairs(NAMES) do
      _G[name] = saved[name]
    end
  end

  -- Whether any printed line contains `text` (plain).
  function ce.said(text)
    for _, line in ipairs(ce.printed) do
      if line:find(text, 1, true) then
        return true
      end
    end
    return false
  end

  return ce
end

return M
