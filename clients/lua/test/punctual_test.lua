-- The Lua module's tests, for every host: lua5.1, lua5.3, lua5.4, luajit and Windows' Lua 5.3
-- under Wine. Run from the directory holding punctual.so / punctual.dll (or with LUA_CPATH
-- pointing at it):  lua5.4 clients/lua/test/punctual_test.lua
-- Plain asserts; the last line is "N passed, N failed", and the exit status is 1 on failure.
--
-- Only what holds on a noisy 2-core VM is asserted: no wake before its deadline, exact grid
-- arithmetic, the order of polls and pumps, which failure is which, clear errors. The one
-- bound from above (a timed-out poll loop ends within its deadline plus one step) uses a
-- 40 ms step, longer than the stalls seen on that VM.
local punctual = require "punctual"
local now = punctual.now

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
local harness = dofile(here .. "/harness.lua")
local test = harness.test

-- Float rounding of two now() readings, far below the clock's 1 ns (1e-6 ms) resolution.
local ROUNDING = 1e-9

print(string.format("%s, punctual %s, %s", _VERSION, punctual.version, jit and jit.version or "no JIT"))

test("10,000 mixed sleeps, none early", function()
  local waits = { 0, 0.001, 0.02, 0.05, 0.1, 0.2, 0.3 }
  local native, spin = punctual.sleeper("native"), punctual.sleeper("spin")
  local early, worst = 0, ""
  for i = 1, 10000 do
    local ms = waits[i % #waits + 1]
    local kind = i % 4
    local start = now()
    local deadline, late
    if kind == 0 then
      late = punctual.sleep(ms)
      deadline = start + ms
    elseif kind == 1 then
      deadline = start + ms
      late = punctual.sleep_until(deadline)
    elseif kind == 2 then
      late = native:sleep(ms)
      deadline = start + ms
    else
      deadline = start + ms
      late = spin:sleep_until(deadline)
    end
    local woke = now()
    assert(type(late) == "number" and late >= 0, "lateness " .. tostring(late))
    if woke < deadline - ROUNDING then
      early = early + 1
      worst = string.format("kind %d, %g ms: woke %.9f ms early", kind, ms, deadline - woke)
    end
  end
  assert(early == 0, early .. " early wakes; last " .. worst)
end)

test("sleep and sleep_until return at or after the deadline by the caller's clock, and say how late", function()
  -- Long and short waits mixed, so that the way back's learned cost is exercised both ways.
  local waits = { 5, 0.001, 2, 0.05, 0.5, 0.01, 1 }
  for i = 1, 70 do
    local ms = waits[i % #waits + 1]
    local start = now()
    local late = punctual.sleep(ms)
    local after = now()
    assert(after - start >= ms, string.format("sleep(%g) returned %g ms after its call", ms, after - start))
    assert(late >= 0 and late <= after - start - ms + ROUNDING, string.format("sleep(%g) said %g late", ms, late))
    local deadline = now() + ms
    late = punctual.sleep_until(deadline)
    after = now()
    assert(after >= deadline, string.format("sleep_until returned %g ms early", deadline - after))
    assert(late >= 0 and late <= after - deadline + ROUNDING, string.format("sleep_until said %g late", late))
  end
end)

test("a sleeper's waits end at or after the deadline by the caller's clock, every strategy", function()
  local waits = { 3, 0.001, 1, 0.05, 0.3 }
  for _, name in ipairs({ "hybrid", "spin", "native" }) do
    local s = punctual.sleeper(name)
    for i = 1, 25 do
      local ms = waits[i % #waits + 1]
      local start = now()
      local late = s:sleep(ms)
      local after = now()
      assert(after - start >= ms, string.format("%s sleep(%g) returned %g ms after its call", name, ms, after - start))
      assert(late >= 0 and late <= after - start - ms + ROUNDING, string.format("%s sleep(%g) said %g late", name, ms, late))
      local deadline = now() + ms
      late = s:sleep_until(deadline)
      after = now()
      assert(after >= deadline, string.format("%s sleep_until returned %g ms early", name, deadline - after))
      assert(late >= 0 and late <= after - deadline + ROUNDING, string.format("%s sleep_until said %g late", name, late))
    end
    assert(s:sleep(0) >= 0)
    assert(s:sleep_until(now() - 5) >= 0)
  end
end)

test("sleep returns the lateness, and sleep(0) returns", function()
  local start = now()
  local late = punctual.sleep(2)
  local took = now() - start
  assert(late >= 0 and late <= took - 2 + ROUNDING, "lateness " .. late .. " of " .. took)
  assert(punctual.sleep(0) >= 0)
end)

test("sleepers report their strategy and margin", function()
  for _, name in ipairs({ "native", "hybrid", "spin" }) do
    local s = punctual.sleeper(name)
    assert(s:strategy() == name)
    assert(s:margin() >= 0)
  end
  assert(punctual.sleeper():strategy() == "hybrid")
end)

test("deadline: remaining and passed", function()
  local d = punctual.deadline(20)
  local left = d:remaining()
  assert(left > 0 and left <= 20, "remaining " .. left)
  assert(d:passed() == false)
  punctual.sleep_until(d:at())
  assert(d:passed() == true)
  assert(d:remaining() == 0)
  assert(punctual.deadline(0):passed() == true)
end)

test("poll_until returns the condition's values", function()
  local polls = 0
  local a, b = punctual.poll_until(function()
    polls = polls + 1
    if polls == 3 then
      return 42, "second"
    end
    return polls == 1 and false or nil -- false and nil both mean "not yet"
  end, { timeout = 5000, step = 1 })
  assert(a == 42 and b == "second" and polls == 3)
end)

test("poll_until without a timeout polls until the condition holds, as in every other client", function()
  local polls = 0
  local done = punctual.poll_until(function()
    polls = polls + 1
    return polls == 4 and "ready"
  end, { step = 1 })
  assert(done == "ready" and polls == 4)
  polls = 0
  assert(punctual.poll_until(function()
    polls = polls + 1
    return polls == 2
  end) == true and polls == 2)
  -- Its failure without options still says what failed.
  local ok, err = pcall(punctual.poll_until, function()
    error("status 0xFF")
  end)
  assert(not ok and err.kind == "failed" and err.timeout == nil, tostring(err))
end)

test("poll_until: a timeout is an error, never a success, within deadline plus one step", function()
  local timeout, step = 100, 40
  local start = now()
  local ok, err = pcall(punctual.poll_until, function() end, { timeout = timeout, step = step })
  local took = now() - start
  assert(not ok, "a timeout fell through as success")
  assert(type(err) == "table" and err.kind == "timeout", tostring(err))
  assert(err.elapsed >= timeout, "timed out early: " .. err.elapsed)
  assert(took >= timeout)
  assert(err.elapsed <= timeout + step, "ended " .. err.elapsed .. " ms after a " .. timeout .. " ms timeout")
  -- Polls at 0, 40, 80 and at the deadline: a sleep is capped at the deadline, none is early.
  assert(err.polls >= 2 and err.polls <= math.ceil(timeout / step) + 1, "polls " .. err.polls)
  assert(err.timeout == timeout)
  assert(tostring(err):find("timed out after", 1, true), tostring(err))
  assert(getmetatable(err) == punctual.PollError)
end)

test("poll_until: the pump runs before every sleep", function()
  local events, times = {}, {}
  local timeout, step = 60, 7
  local start = now()
  local ok, err = pcall(punctual.poll_until, function()
    events[#events + 1], times[#times + 1] = "c", now()
  end, {
    timeout = timeout,
    step = step,
    pump = function()
      events[#events + 1], times[#times + 1] = "p", now()
    end,
  })
  assert(not ok and err.kind == "timeout", tostring(err))
  local polls = 0
  for i, e in ipairs(events) do
    assert(e == (i % 2 == 1 and "c" or "p"), "order " .. table.concat(events))
    if e == "c" then
      polls = polls + 1
    end
  end
  assert(events[#events] == "c", "ended on a pump: " .. table.concat(events))
  assert(polls == err.polls, polls .. " polls seen, " .. err.polls .. " reported")
  -- Between a pump and the next poll lies the sleep: a whole step, or up to the deadline.
  for i = 3, #events, 2 do
    local due = math.min(times[i - 2] + step, start + timeout)
    assert(times[i] >= due - ROUNDING, "poll " .. (i + 1) / 2 .. " came early")
  end
end)

test("poll_until: the condition's own failure is not a timeout", function()
  local polls = 0
  local ok, err = pcall(punctual.poll_until, function()
    polls = polls + 1
    if polls == 3 then
      error({ status = 0xFF, why = "took the command and wedged" })
    end
  end, { timeout = 5000, step = 1 })
  assert(not ok and type(err) == "table", tostring(err))
  assert(err.kind == "failed", "kind " .. tostring(err.kind))
  assert(type(err.reason) == "table" and err.reason.status == 0xFF, "the condition's value was lost")
  assert(err.polls == 3 and err.elapsed < 5000)
  assert(tostring(err):find("the condition failed", 1, true))

  local ok2, err2 = pcall(punctual.poll_until, function()
    error("stale mailbox", 0)
  end, { timeout = 5000 })
  assert(not ok2 and err2.kind == "failed" and err2.reason == "stale mailbox", tostring(err2))
end)

test("poll_until: a failing pump ends the wait as kind 'pump'", function()
  local ok, err = pcall(punctual.poll_until, function() end, {
    timeout = 5000,
    step = 1,
    pump = function()
      error("pump broke", 0)
    end,
  })
  assert(not ok and err.kind == "pump" and err.reason == "pump broke", tostring(err))
  assert(err.polls == 2, "polls " .. err.polls) -- the next poll reports it, one step later
end)

test("ticker: exact grid arithmetic", function()
  local t = punctual.ticker(1 / 3, { first = now() + 1000 })
  local period = t:period()
  assert(period == 0.333334, "1/3 ms rounds up to 333334 ns, got " .. period)
  local d0 = t:deadline_of(0)
  for _, k in ipairs({ 1, 2, 3, 1000, 999999, 12345678 }) do
    local dk = t:deadline_of(k)
    assert(math.abs((dk - d0) - k * period) < 1e-6, "tick " .. k .. " off the grid by " .. (dk - d0) - k * period)
  end
  assert(t:next_index() == 0 and t:missed() == 0 and t:policy() == "skip")
end)

test("ticker: ticks never early, indices in order", function()
  local t = punctual.ticker(2)
  for k = 0, 9 do
    local due = t:deadline_of(k)
    local index, late, missed = t:tick()
    local after = now()
    assert(after >= due, "tick " .. k .. " early by the caller's clock")
    assert(late >= 0 and late <= after - t:deadline_of(index) + ROUNDING, "tick " .. k .. " said " .. late .. " late")
    assert(index == k + missed, "index " .. index .. " after " .. k)
    if missed > 0 then
      break -- a stalled VM skipped ticks; the skip test checks that arithmetic
    end
  end
end)

test("ticker: skip drops the passed ticks and counts them", function()
  local t = punctual.ticker(5, { policy = "skip" })
  local first = t:tick()
  punctual.sleep(17.5) -- 3.5 periods: ticks first+1 .. first+3 pass
  local index, late, missed = t:tick()
  assert(missed >= 3 and index == first + 1 + missed, "index " .. index .. ", missed " .. missed)
  assert(late >= 0 and t:missed() == missed)
end)

test("ticker: burst fires every passed tick, late", function()
  local t = punctual.ticker(5, { policy = "burst" })
  local first = t:tick()
  punctual.sleep(17.5)
  local index, late, missed = t:tick()
  assert(index == first + 1 and missed == 0, "index " .. index .. ", missed " .. missed)
  assert(late >= 12.5, "the overdue tick fired only " .. late .. " ms late")
  local index2 = t:tick()
  assert(index2 == first + 2)
end)

test("ticker: delay re-anchors the grid on the late tick", function()
  local t = punctual.ticker(5, { policy = "delay" })
  local first = t:tick()
  punctual.sleep(17.5)
  local old_due = t:deadline_of(first + 1)
  local index, late, missed = t:tick()
  assert(index == first + 1 and missed >= 2, "index " .. index .. ", missed " .. missed)
  -- Re-anchored on the tick's wake: after the old deadline, and no later than the caller's
  -- reading that the lateness comes from.
  local anchor = t:deadline_of(index)
  assert(anchor >= old_due and anchor <= old_due + late + 1e-6, "anchor " .. anchor .. " vs caller's " .. old_due + late)
  assert(math.abs(t:deadline_of(index + 1) - anchor - 5) < 1e-6)
  assert(t:deadline_of(index - 1) == nil, "a tick before the new anchor has no deadline")
end)

test("mid-band cheat sheet: the requests mid-band of a 15.625 ms tick", function()
  local expected = { 8, 23, 39, 55, 70, 86, 102, 117, 133, 148 }
  for k, n in ipairs(expected) do
    assert(punctual.mid_band(15.625, k) == n, "k " .. k)
  end
  assert(punctual.mid_band(15.625, 16) == 242)
  local sheet = punctual.cheat_sheet(15.625)
  assert(#sheet == 10 and sheet[2].request == 23 and sheet[2].actual == 31.25 and sheet[8].rate_hz == 8)
  assert(#punctual.cheat_sheet(15.625, 16) == 16)
end)

test("probe: a verdict on the plain sleep, and on a sleep the script passes", function()
  local verdict = punctual.probe({ samples = 1 })
  assert(verdict.sleep == "os" and type(verdict.quantized) == "boolean")
  assert(verdict.floor >= 1, "a 1 ms sleep cost " .. verdict.floor .. " ms")
  assert((verdict.quantum ~= nil) == verdict.quantized)
  assert((verdict.overshoot ~= nil) == not verdict.quantized)
  assert(#verdict.costs == 8 and verdict.costs[1].request == 1)
  -- The host's own sleep, when passed, is what gets timed: each request once unmeasured,
  -- then `samples` times, never costing less than it slept. (Whether costs show a quantum
  -- is arithmetic, tested on a quantised table in crates/punctual/src/quantum.rs; a timing
  -- test of it would be a latency test.)
  local calls, slept = {}, {}
  local function host_sleep(ms)
    calls[#calls + 1] = ms
    slept[ms] = math.max(slept[ms] or 0, ms + 0.5)
    punctual.sleep(ms + 0.5)
  end
  local host = punctual.probe({ sleep = host_sleep, samples = 2 })
  assert(host.sleep == "host" and (host.quantum ~= nil) == host.quantized)
  local requests = { 1, 2, 5, 10, 15, 16, 20, 30 }
  assert(#calls == 3 * #requests, #calls .. " calls")
  for i, ms in ipairs(calls) do
    assert(ms == requests[math.floor((i - 1) / 3) + 1], "call " .. i .. " asked " .. ms)
  end
  for i, row in ipairs(host.costs) do
    assert(row.request == requests[i] and row.cost >= slept[row.request], "cost " .. row.cost)
  end
  assert(host.floor >= 1.5)
end)

local windows = package.config:sub(1, 1) == "\\"

-- Only the name the library reports for the call it timed (punctual-sys's PLAIN_SLEEP), and
-- that a sleep passed in has none. That the call is Win32 Sleep is punctual-sys's own, and
-- no behaviour here tells: under Wine, Sleep is not quantised (it is NtDelayExecution, as the
-- module's native waits there), so a run's costs would only tell it apart from the
-- waitable timer by how late each wake is, a latency figure no test asserts. A tick's
-- verdict is tested below, on a fake clock.
test("probe reports the plain sleep it timed by name: Win32 Sleep() on Windows", function()
  local verdict = punctual.probe({ samples = 1 })
  local expected = windows and "Win32 Sleep()" or "std::thread::sleep"
  assert(verdict.primitive == expected, "timed " .. tostring(verdict.primitive))
  assert(punctual.probe({ sleep = function(ms) punctual.sleep(ms) end, samples = 1 }).primitive == nil)
end)

-- Win32 Sleep on the default timer, on a fake clock the probe is given: a request ends at
-- the first 15.625 ms tick edge at or after it, and Sleep(0) only yields. The clock is the
-- script's, so that a loaded machine's late wakes do not move the edges.
local TICK = 15.625
local function fake_tick()
  local clock = 7 -- mid-tick
  local asked = {}
  local function sleep(ms)
    asked[#asked + 1] = ms
    if ms > 0 then
      clock = math.ceil((clock + ms) / TICK) * TICK
    end
  end
  return sleep, function() return clock end, asked
end

test("probe finds the 15.625 ms tick of a Win32-like sleep, on the script's clock", function()
  local sleep, clock, asked = fake_tick()
  local verdict = punctual.probe({ sleep = sleep, clock = clock, samples = 2 })
  assert(verdict.sleep == "host" and verdict.quantized, "no quantum found")
  assert(verdict.quantum == TICK, "quantum " .. tostring(verdict.quantum))
  assert(verdict.overshoot == nil)
  assert(verdict.floor == TICK, "a 1 ms request cost " .. verdict.floor)
  local by_request = {}
  for _, row in ipairs(verdict.costs) do
    by_request[row.request] = row.cost
  end
  -- 1 to 15 cost one tick, 16 to 30 two: a floor of one tick and a step at 16.
  assert(by_request[10] == TICK and by_request[16] == 2 * TICK, "16 ms cost " .. by_request[16])
  assert(#asked == 3 * #verdict.costs, "each request once unmeasured, then twice: " .. #asked)
  local sheet = punctual.cheat_sheet(verdict.quantum)
  assert(#sheet == 10 and sheet[1].request == 8, "k = 1: sleep(" .. sheet[1].request .. ")")
end)

test("probe: a clock that fails or reads no time is a clear error", function()
  local sleep = fake_tick()
  local ok, err = pcall(punctual.probe, { sleep = sleep, clock = function() error("no clock") end })
  assert(not ok and err:find("the clock function failed", 1, true) and err:find("no clock", 1, true), err)
  ok, err = pcall(punctual.probe, { sleep = sleep, clock = function() return 0 / 0 end })
  assert(not ok and err:find("clock's reading", 1, true) and err:find("NaN", 1, true), err)
  ok, err = pcall(punctual.probe, { sleep = sleep, clock = function() return "soon" end })
  assert(not ok and err:find("a number expected, got string", 1, true), err)
  ok, err = pcall(punctual.probe, { clock = function() return 0 end })
  assert(not ok and err:find("'sleep', which is missing", 1, true), err)
  ok, err = pcall(punctual.probe, { sleep = sleep, clock = 5 })
  assert(not ok and err:find("bad argument 'clock' (a function returning milliseconds expected, got number)", 1, true), err)
end)

-- Cheat Engine's pumps as globals for the length of `body`, counting their calls.
local function with_pumps(names, body)
  local calls = {}
  for _, name in ipairs(names) do
    calls[name] = 0
    _G[name] = function()
      calls[name] = calls[name] + 1
    end
  end
  local ok, err = pcall(body, calls)
  for _, name in ipairs(names) do
    _G[name] = nil
  end
  assert(ok, err)
end

test("default pump: processMessagesPaintOnly, else processMessages, else none, looked up per call", function()
  assert(punctual.default_pump() == "none" and select(2, punctual.default_pump()) == nil)
  with_pumps({ "processMessages" }, function(calls)
    local name, f = punctual.default_pump()
    assert(name == "processMessages" and f == processMessages)
    local ok, err = pcall(punctual.poll_until, function() end, { timeout = 30, step = 5 })
    assert(not ok and err.kind == "timeout" and err.pump == "processMessages", tostring(err))
    assert(calls.processMessages == err.polls - 1, calls.processMessages .. " pumps, " .. err.polls .. " polls")
  end)
  with_pumps({ "processMessagesPaintOnly", "processMessages" }, function(calls)
    assert(punctual.default_pump() == "processMessagesPaintOnly")
    local ok, err = pcall(punctual.poll_until, function() end, { timeout = 25, step = 5 })
    assert(not ok and err.pump == "processMessagesPaintOnly", tostring(err))
    assert(calls.processMessagesPaintOnly == err.polls - 1 and calls.processMessages == 0)
    local late, pump = punctual.wait(12, { step = 4 })
    assert(late >= 0 and pump == "processMessagesPaintOnly", tostring(pump))
    assert(calls.processMessages == 0)
  end)
  local ok, err = pcall(punctual.poll_until, function() end, { timeout = 5 })
  assert(not ok and err.pump == "none")
end)

-- The pump a timed-out poll_until reports, for these options.
local function pump_named(options)
  options.timeout, options.step = 3, 1
  local ok, err = pcall(punctual.poll_until, function() end, options)
  assert(not ok and err.kind == "timeout", tostring(err))
  return err.pump
end

test("pump = false is no pump; a nil pump is the default; a function is named", function()
  with_pumps({ "processMessagesPaintOnly" }, function(calls)
    assert(pump_named({ pump = false }) == "none" and calls.processMessagesPaintOnly == 0)
    -- A misspelt global is nil, and so no key at all: the default's lookup decides.
    assert(pump_named({ pump = processMessagesPaintOnlyy }) == "processMessagesPaintOnly")
    assert(pump_named({ pump = processMessagesPaintOnly }) == "processMessagesPaintOnly")
    assert(pump_named({ pump = function() end }) == "given")
  end)
end)

test("before_sleep is pump's other name, and the two are one hook", function()
  local events = {}
  local ok, err = pcall(punctual.poll_until, function()
    events[#events + 1] = "c"
  end, { timeout = 20, step = 4, before_sleep = function()
    events[#events + 1] = "p"
  end })
  assert(not ok and err.kind == "timeout" and err.pump == "given", tostring(err))
  for i, e in ipairs(events) do
    assert(e == (i % 2 == 1 and "c" or "p"), "order " .. table.concat(events))
  end
  assert(events[#events] == "c")
  assert(pump_named({ before_sleep = false }) == "none")
end)

test("wait: never early, ends at its deadline, pumps before every sleep", function()
  for _, case in ipairs({ { 0, 10 }, { 0.3, 10 }, { 7, 2 }, { 40, 10 }, { 33, 0.5 } }) do
    local ms, step = case[1], case[2]
    local pumps = 0
    local start = now()
    local late, name = punctual.wait(ms, {
      step = step,
      pump = function()
        pumps = pumps + 1
      end,
    })
    local woke = now()
    assert(woke >= start + ms - ROUNDING, ms .. " ms: woke " .. (start + ms - woke) .. " ms early")
    assert(late >= 0 and late <= woke - start - ms + ROUNDING, "lateness " .. late)
    assert(name == "given")
    -- A pump before every sleep: one per step at most, none once the deadline has passed.
    assert(pumps <= math.ceil(ms / step), ms .. " ms in steps of " .. step .. ": " .. pumps .. " pumps")
    assert(ms == 0 or pumps >= 1, "no pump in " .. ms .. " ms")
  end
  assert(punctual.wait(5, { strategy = "spin" }) >= 0 and punctual.wait(5, { strategy = "hybrid" }) >= 0)
end)

test("wait: a failing pump ends it as a punctual.PollError of kind 'pump'", function()
  local reason = { why = "the form is gone" }
  local start = now()
  local ok, err = pcall(punctual.wait, 5000, {
    step = 1,
    pump = function()
      error(reason)
    end,
  })
  assert(not ok and getmetatable(err) == punctual.PollError, tostring(err))
  assert(err.kind == "pump" and err.reason == reason and err.pump == "given")
  assert(err.elapsed < 5000 and now() - start < 5000)
  assert(tostring(err):find("punctual.wait: the pump (given) failed", 1, true), tostring(err))
end)

test("a pump that yields or waits again is a Lua error or works, never a crash", function()
  local co = coroutine.create(function()
    return punctual.wait(50, { step = 1, pump = coroutine.yield })
  end)
  local resumed, err = coroutine.resume(co)
  assert(not resumed and type(err) == "table" and err.kind == "pump", tostring(err))
  assert(tostring(err.reason):find("yield", 1, true), tostring(err.reason))
  local depth = 0
  local late = punctual.wait(10, {
    step = 3,
    pump = function()
      depth = depth + 1
      if depth == 1 then
        punctual.wait(2, { pump = false })
      end
    end,
  })
  assert(late >= 0 and depth >= 1)
end)

test("timer_info names the mechanism", function()
  local info = punctual.timer_info()
  assert(type(info.mechanism) == "string" and #info.mechanism > 0)
  assert(type(info.high_resolution) == "boolean")
end)

-- Every bad argument is a Lua error naming the function, and the host lives on.
local function rejects(label, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, label .. " was accepted")
  assert(type(err) == "string", label .. ": error is a " .. type(err))
  return err
end

test("bad arguments are Lua errors with clear messages", function()
  local nan, inf = 0 / 0, math.huge
  local cases = {
    { "sleep(-1)", punctual.sleep, -1, "0 ms or more" },
    { "sleep(NaN)", punctual.sleep, nan, "NaN" },
    { "sleep(inf)", punctual.sleep, inf, "at most" },
    { "sleep(-inf)", punctual.sleep, -inf, "0 ms or more" },
    { "sleep(1e300)", punctual.sleep, 1e300, "1e300" },
    { "sleep('1')", punctual.sleep, "1", "a number expected, got string" },
    { "sleep({})", punctual.sleep, {}, "got table" },
    { "sleep()", punctual.sleep, nil, "got nil" },
    { "sleep(true)", punctual.sleep, true, "got boolean" },
    { "sleep_until(NaN)", punctual.sleep_until, nan, "a time from now()" },
    { "sleep_until(inf)", punctual.sleep_until, inf, "a time from now()" },
    { "sleep_until('x')", punctual.sleep_until, "x", "got string" },
    { "sleeper('fast')", punctual.sleeper, "fast", "unknown strategy" },
    { "sleeper(5)", punctual.sleeper, 5, "got number" },
    { "deadline(-5)", punctual.deadline, -5, "0 ms or more" },
    { "deadline()", punctual.deadline, nil, "got nil" },
    { "poll_until(nil)", punctual.poll_until, nil, "a function expected" },
    { "poll_until(f, 5)", punctual.poll_until, function() end, 5, "a table expected" },
    { "timeout -1", punctual.poll_until, function() end, { timeout = -1 }, "0 ms or more" },
    { "timeout inf", punctual.poll_until, function() end, { timeout = inf }, "at most" },
    { "timeout '10'", punctual.poll_until, function() end, { timeout = "10" }, "got string" },
    { "step NaN", punctual.poll_until, function() end, { timeout = 10, step = nan }, "NaN" },
    { "pump 5", punctual.poll_until, function() end, { timeout = 10, pump = 5 }, "'pump'" },
    { "strategy x", punctual.poll_until, function() end, { timeout = 10, strategy = "x" }, "unknown strategy" },
    { "misspelt option", punctual.poll_until, function() end, { tiemout = 10 }, "unknown option 'tiemout'" },
    { "ticker(0)", punctual.ticker, 0, "longer than zero" },
    { "ticker(-1)", punctual.ticker, -1, "0 ms or more" },
    { "ticker(NaN)", punctual.ticker, nan, "NaN" },
    { "ticker policy", punctual.ticker, 5, { policy = "later" }, "\"later\"" },
    { "ticker first", punctual.ticker, 5, { first = nan }, "'first'" },
    { "ticker option", punctual.ticker, 5, { bogus = 1 }, "unknown option" },
    { "mid_band(0)", punctual.mid_band, 0, 1, "more than 0" },
    { "mid_band(NaN)", punctual.mid_band, nan, 1, "NaN" },
    { "mid_band k 0", punctual.mid_band, 15.625, 0, "whole number" },
    { "mid_band k 1.5", punctual.mid_band, 15.625, 1.5, "whole number" },
    { "mid_band k 'a'", punctual.mid_band, 15.625, "a", "got string" },
    { "cheat_sheet bands 0", punctual.cheat_sheet, 15.625, 0, "whole number" },
    { "probe samples 0", punctual.probe, { samples = 0 }, "whole number" },
    { "probe sleep 5", punctual.probe, { sleep = 5 }, "'sleep'" },
    { "probe bogus", punctual.probe, { bogus = 1 }, "unknown option" },
    { "probe 'x'", punctual.probe, "x", "a table expected" },
    { "pump true", punctual.poll_until, function() end, { timeout = 10, pump = true }, "or false for no pump" },
    { "pump name", punctual.poll_until, function() end, { timeout = 10, pump = "processMessages" }, "string \"processMessages\"" },
    { "pump table", punctual.poll_until, function() end, { timeout = 10, pump = {} }, "got table" },
    { "before_sleep 5", punctual.poll_until, function() end, { timeout = 10, before_sleep = 5 }, "'before_sleep'" },
    { "pump and before_sleep", punctual.poll_until, function() end, { timeout = 10, pump = print, before_sleep = print }, "give one" },
    { "wait(-1)", punctual.wait, -1, "0 ms or more" },
    { "wait(NaN)", punctual.wait, nan, "NaN" },
    { "wait('5')", punctual.wait, "5", "got string" },
    { "wait()", punctual.wait, nil, "got nil" },
    { "wait step -1", punctual.wait, 5, { step = -1 }, "'step'" },
    { "wait strategy", punctual.wait, 5, { strategy = "later" }, "unknown strategy" },
    { "wait option", punctual.wait, 5, { timeout = 5 }, "unknown option 'timeout'" },
    { "wait options 5", punctual.wait, 5, 5, "a table expected" },
    { "wait pump 1", punctual.wait, 5, { pump = 1 }, "'pump'" },
  }
  for _, case in ipairs(cases) do
    local label, f, want = case[1], case[2], case[#case]
    local err = rejects(label, f, case[3], case[4] ~= want and case[4] or nil)
    assert(err:find(want, 1, true), label .. ": '" .. err .. "' does not say '" .. want .. "'")
    assert(err:find("punctual.", 1, true), label .. ": '" .. err .. "' names no function")
  end
  local s, t, d = punctual.sleeper("native"), punctual.ticker(5), punctual.deadline(5)
  local bad_methods = {
    { "s:sleep(-1)", function() return s:sleep(-1) end, "sleeper:sleep" },
    { "s:sleep_until(NaN)", function() return s:sleep_until(nan) end, "sleeper:sleep_until" },
    { "s.sleep(5)", function() return s.sleep(5) end, "use a colon" },
    { "t.tick()", function() return t.tick() end, "use a colon" },
    { "t:deadline_of(-1)", function() return t:deadline_of(-1) end, "whole number" },
    { "t:deadline_of(1.5)", function() return t:deadline_of(1.5) end, "whole number" },
    { "t:deadline_of(NaN)", function() return t:deadline_of(nan) end, "whole number" },
    { "d.remaining()", function() return d.remaining() end, "use a colon" },
    { "failing host sleep", function() return punctual.probe({ sleep = function() error("no") end }) end, "sleep function failed" },
  }
  for _, case in ipairs(bad_methods) do
    local err = rejects(case[1], case[2])
    assert(err:find(case[3], 1, true), case[1] .. ": '" .. err .. "' does not say '" .. case[3] .. "'")
  end
end)

test("argument errors point at the caller's line", function()
  local err = rejects("sleep(-1)", function()
    punctual.sleep(-1)
  end)
  assert(err:match("punctual_test%.lua:%d+: punctual%.sleep"), err)
  local err2 = rejects("ticker", function()
    punctual.ticker(0)
  end)
  assert(err2:match("punctual_test%.lua:%d+: punctual%.ticker"), err2)
  for _, call in ipairs({
    function() punctual.poll_until(function() end, { timeout = 1, pump = true }) end,
    function() punctual.wait(-1) end,
    function() punctual.wait(1, { pump = true }) end,
    function() punctual.poll_until(function() end, { timeout = 1, before_sleep = 1 }) end,
  }) do
    local e = rejects("wait and pump", call)
    assert(e:match("punctual_test%.lua:%d+: punctual%.%a+"), e)
  end
end)

harness.finish()
