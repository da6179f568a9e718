-- The scripts of examples/cheat-engine/, run with Cheat Engine's functions emulated
-- (test/cheat_engine.lua: a Win32-like sleep on a 15.625 ms tick, getTickCount, the pumps,
-- readBytes on an emulated mailbox), under every host run-tests.sh knows, Wine's Lua 5.3
-- among them. Each example takes an options table as its `...` (Cheat Engine passes none),
-- here to keep its waits short: the whole file runs in about two seconds.
-- Plain asserts, as test/punctual_test.lua; the last line is "N passed, N failed".
local punctual = require "punctual"
local now = punctual.now

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
local emulator = dofile(here .. "/cheat_engine.lua")
local examples = here .. "/../examples/cheat-engine/"

local harness = dofile(here .. "/harness.lua")
local test = harness.test

local ROUNDING = 1e-9

-- Runs an example under a fresh emulation; returns the emulation and what the script
-- returned, or raises what the script raised.
local function run(example, options, emulation)
  local chunk = assert(loadfile(examples .. example))
  local ce = emulator.install(emulation)
  local results = { pcall(chunk, options) }
  ce.uninstall()
  if not results[1] then
    error(example .. " raised: " .. tostring(results[2]), 0)
  end
  return ce, (table.unpack or unpack)(results, 2)
end

print(string.format("%s, punctual %s: examples/cheat-engine under emulated Cheat Engine", _VERSION, punctual.version))

local MAILBOX, STATUS_OFF = 0x7ff0000, 0x10
local STATUS = MAILBOX + STATUS_OFF

-- The emulation's memory must be set before the script polls: install, set, run.
local function run_mailbox(options, dll, emulation)
  local chunk = assert(loadfile(examples .. "mailbox.lua"))
  local ce = emulator.install(emulation)
  dll(ce)
  local start = now()
  local results = { pcall(chunk, options) }
  local took = now() - start
  ce.uninstall()
  assert(results[1], "mailbox.lua raised: " .. tostring(results[2]))
  return ce, took, results[2], results[3]
end

test("mailbox: answered after 40 ms, pumping processMessagesPaintOnly", function()
  local ce, took, ok = run_mailbox({ mailbox = MAILBOX, status_off = STATUS_OFF, timeout = 2000 }, function(ce)
    ce.memory[STATUS] = 0
    ce.write_at(10, STATUS, 2) -- picked up
    ce.write_at(40, STATUS, 1) -- done
  end)
  assert(ok == true, "the answer was missed")
  assert(took >= 40 - ROUNDING, "succeeded " .. took .. " ms in, before the answer")
  assert(ce.calls.processMessagesPaintOnly >= 1 and ce.calls.processMessages == 0)
  -- One pump before each sleep: a poll more than pumps.
  assert(ce.calls.readBytes == ce.calls.processMessagesPaintOnly + 1,
    ce.calls.readBytes .. " polls, " .. ce.calls.processMessagesPaintOnly .. " pumps")
  assert(ce.said("answered after") and ce.said("processMessagesPaintOnly"))
end)

test("mailbox: never picked up is a timeout, at or after the deadline, and says so", function()
  local ce, took, ok, why = run_mailbox({ mailbox = MAILBOX, status_off = STATUS_OFF, timeout = 150 }, function(ce)
    ce.memory[STATUS] = 0
  end)
  assert(ok == false and why == "timeout", tostring(why))
  assert(took >= 150, "timed out after " .. took .. " ms of 150")
  assert(ce.said("never picked the command up"), "the timeout does not say the DLL never picked it up")
end)

test("mailbox: picked up but never done is a timeout of the other kind", function()
  local ce, _, ok, why = run_mailbox({ mailbox = MAILBOX, status_off = STATUS_OFF, timeout = 100 }, function(ce)
    ce.memory[STATUS] = 0
    ce.write_at(20, STATUS, 2)
  end)
  assert(ok == false and why == "timeout")
  assert(ce.said("took the command (status 2)"))
end)

test("mailbox: an unreadable mailbox is its own failure, at once", function()
  local ce, took, ok, why = run_mailbox({ mailbox = MAILBOX, timeout = 5000 }, function() end)
  assert(ok == false and why == "unreadable", tostring(why))
  assert(took < 5000 and ce.calls.readBytes == 1 and ce.said("not readable"))
end)

test("mailbox: status 0xFF is the DLL's own failure, at once, not a timeout", function()
  local ce, took, ok, why = run_mailbox({ mailbox = MAILBOX, status_off = STATUS_OFF, timeout = 5000 }, function(ce)
    ce.memory[STATUS] = 0
    ce.write_at(30, STATUS, 0xFF)
  end)
  assert(ok == false and why == "wedged", tostring(why))
  assert(took >= 30 - ROUNDING and took < 5000, "took " .. took)
  assert(ce.said("wedged") and not ce.said("timeout"))
end)

test("mailbox: an older Cheat Engine without the paint-only pump gets processMessages", function()
  local ce, _, ok = run_mailbox({ mailbox = MAILBOX, status_off = STATUS_OFF, timeout = 2000 }, function(ce)
    ce.memory[STATUS] = 0
    ce.write_at(20, STATUS, 1)
  end, { paint_only = false })
  assert(ok == true and ce.calls.processMessages >= 1 and ce.said("processMessages"))
end)

test("mailbox: no address is an error before any poll", function()
  local ce, ok, why = run("mailbox.lua", {}, {})
  assert(ok == false and why == "no mailbox" and ce.calls.readBytes == 0)
end)

test("cheat sheet: the ruler, Cheat Engine's sleep timed, a tick found and its mid-band requests", function()
  -- On the emulation's own clock, so that a loaded machine's late wakes do not blur the tick.
  local chunk = assert(loadfile(examples .. "cheat_sheet.lua"))
  local ce = emulator.install({ virtual_time = true })
  local ok, verdict, sheet = pcall(chunk, { samples = 1, clock = ce.clock })
  ce.uninstall()
  assert(ok, "cheat_sheet.lua raised: " .. tostring(verdict))
  assert(ce.said("getTickCount moves in steps of 15 ms") or ce.said("getTickCount moves in steps of 16 ms"),
    "the ruler: " .. tostring(ce.printed[1]))
  assert(verdict.sleep == "host" and verdict.quantized, "no tick found in Win32-like sleeps")
  assert(math.abs(verdict.quantum - emulator.TICK) < 1, "quantum " .. verdict.quantum)
  assert(#sheet == 10 and math.abs(sheet[1].request - 8) <= 1 and math.abs(sheet[8].request - 117) <= 8)
  assert(ce.calls.sleep == 2 * #verdict.costs, ce.calls.sleep .. " sleeps")
  assert(ce.said("sleep is quantised") and ce.said("  1  sleep("))
end)

test("the 10,000 x sleep(1) loop on a deadline: never early, pumped every iteration", function()
  local ce, took, iterations = run("deadline_loop.lua", { budget = 200, compare = 5 }, {})
  assert(took >= 200, "a 200 ms budget ended after " .. took .. " ms")
  assert(iterations >= 1 and ce.calls.processMessagesPaintOnly == iterations)
  assert(ce.calls.sleep == 5)
  assert(ce.said("sleep(1) costs") and ce.said("iterations in"))
end)

-- A script as Cheat Engine users write it: sleep(n) calls, nothing of punctual's.
local SLEEPY = [[
for _ = 1, 20 do
  sleep(1)
end
sleep(0)
sleep(2.5)
]]
local SLEEPY_MS = 20 + 0 + 2.5

-- Runs SLEEPY, after `first_line` (nil: none), under a fresh emulation; returns the
-- emulation and how long the script took on punctual.now().
local function run_sleepy(first_line)
  local source = (first_line and first_line .. "\n" or "") .. SLEEPY
  local chunk = assert((loadstring or load)(source, "=sleepy.lua"))
  local ce = emulator.install({})
  local start = now()
  local ok, err = pcall(chunk)
  local took = now() - start
  ce.uninstall()
  assert(ok, "the script raised: " .. tostring(err))
  return ce, took
end

test("one line switches a script's sleep(n) to punctual's: local sleep = require('punctual').sleep", function()
  local ce = run_sleepy(nil)
  assert(ce.calls.sleep == 22, "without the line, Cheat Engine's sleep ran " .. ce.calls.sleep .. " times")
  for _, line in ipairs({
    'local sleep = require("punctual").sleep', -- this script only
    'sleep = require("punctual").sleep', -- every script of the Lua state, from now on
  }) do
    local switched, took = run_sleepy(line)
    assert(switched.calls.sleep == 0, line .. ": Cheat Engine's sleep still ran " .. switched.calls.sleep .. " times")
    assert(took >= SLEEPY_MS, line .. ": " .. SLEEPY_MS .. " ms of sleeps ended after " .. took .. " ms")
  end
end)

harness.finish()
