-- The table `require "punctual"` returns, built over the Rust core (src/lib.rs), which
-- hands this chunk its table of checked functions.
--
-- One error rule for the whole module: every failure raises a Lua error. A bad argument
-- raises a string naming the function and the argument, at the caller's line (as
-- luaL_argerror does); poll_until's two failures, a timeout and the condition's (or the
-- pump's) own, and a pump failing in wait, raise a table with a `kind` field and a
-- __tostring. Nothing returns `nil, err`, so no failure can fall through as a success.
local core = ...

local error, getmetatable, pcall, select, setmetatable, tostring, type =
  error, getmetatable, pcall, select, setmetatable, tostring, type
local format = string.format
local unpack = table.unpack or unpack

local M = { version = core.version }

-- The core answers `nil, message` for a bad argument: raise it at the line that called the
-- public function (level 2 from the closure, which must not tail-call for that). A `nil`
-- with no message is a real answer (deadline_of's "no such tick").
local function checked(f)
  return function(a, b)
    local value, message = f(a, b)
    if value == nil and message ~= nil then
      error(message, 2)
    end
    return value
  end
end

M.now = core.now

-- The way back from the core to the caller is part of the wait. After a long native sleep
-- the interpreter's own path back (the call's return, the caller's next clock read) runs
-- on cold caches, and costs microseconds that the core's reading of its wake does not see.
-- So the core sleeps until its learned way back before the deadline (the library's
-- WayBack: at most 0.05 ms, learned from the `back` this loop hands it on the next call),
-- and this loop, hot by then, reads the clock until the deadline itself: the call returns
-- at or after it, by the caller's clock, never before.
local back = nil -- the last way back, from the core's wake to this loop's first reading
local now = core.now
local core_sleep, core_sleep_until, core_sleep_until_near = core.sleep, core.sleep_until, core.sleep_until_near
local HUGE = math.huge

-- A deadline this loop can aim below: a finite number (NaN, infinities and the wrong types
-- go to the core as they are, for its answer or its error).
local function aimable(t)
  return type(t) == "number" and t == t and t > -HUGE and t < HUGE
end

-- The last stretch of every wait, from the core's wake `woke` to the deadline `t`: learns
-- the way back from the first reading, reads the clock to `t`, and returns the lateness.
local function last_stretch(woke, t)
  local reached = now()
  back = reached - woke
  while reached < t do
    reached = now()
  end
  return reached - t
end

-- (A deadline before the clock's origin is long past: the core takes it as the origin, and
-- so returns at once.)
local function until_deadline(t)
  local woke, message = core_sleep_until_near(t, back)
  if woke == nil then
    error(message, 3) -- at the line that called M.sleep or M.sleep_until
  end
  return last_stretch(woke, t)
end

-- Each returns its lateness in ms by this module's clock read after the wait, as the caller
-- reads it.
function M.sleep(ms)
  if not aimable(ms) or ms < 0 then
    local value, message = core_sleep(ms)
    if value == nil and message ~= nil then
      error(message, 2)
    end
    return value
  end
  local late = until_deadline(now() + ms)
  return late
end

function M.sleep_until(t)
  if not aimable(t) then
    local value, message = core_sleep_until(t)
    if value == nil and message ~= nil then
      error(message, 2)
    end
    return value
  end
  local late = until_deadline(t)
  return late
end
M.mid_band = checked(core.mid_band)
M.cheat_sheet = checked(core.cheat_sheet)
M.probe = checked(core.probe)
M.timer_info = core.timer_info

-- Objects are Lua tables over the core's userdata, so that a method called with a dot
-- instead of a colon is a clear error rather than mlua's.
local HANDLE = {}

local function class(name)
  local c = {}
  c.__index = c
  c.__tostring = function(self)
    return format("punctual.%s (%s)", name, tostring(self[HANDLE]))
  end
  c.__name = "punctual." .. name
  return c
end

local function method(c, label, name)
  c[name] = function(self, arg)
    if getmetatable(self) ~= c then
      error(format("%s:%s: called without its object (use a colon: x:%s(...))", label, name, name), 2)
    end
    local handle = self[HANDLE]
    local value, message = handle[name](handle, arg)
    if value == nil and message ~= nil then
      error(message, 2)
    end
    return value
  end
end

-- Raises at the line that called M.sleeper and the like (which must not tail-call new).
local function new(c, handle, message)
  if handle == nil then
    error(message, 3)
  end
  return setmetatable({ [HANDLE] = handle }, c)
end

local Sleeper = class("sleeper")
for _, name in ipairs({ "strategy", "margin" }) do
  method(Sleeper, "sleeper", name)
end
-- A sleeper's waits end in this loop as punctual.sleep's do (a native sleeper's core waits
-- to the deadline itself, so the loop reads the clock once). What this loop cannot aim at
-- goes to the core's own method, for its answer or its error.
local function sleeper_until(self, label, t, direct)
  if getmetatable(self) ~= Sleeper then
    error(format("sleeper:%s: called without its object (use a colon: x:%s(...))", label, label), 3)
  end
  local handle = self[HANDLE]
  if direct ~= nil then
    local value, message = handle[label](handle, direct)
    if value == nil and message ~= nil then
      error(message, 3)
    end
    return value
  end
  local woke, message = handle:sleep_until_near(t, back)
  if woke == nil then
    error(message, 3)
  end
  return last_stretch(woke, t)
end
function Sleeper:sleep(ms)
  if not aimable(ms) or ms < 0 then
    local late = sleeper_until(self, "sleep", nil, ms)
    return late
  end
  local late = sleeper_until(self, "sleep", now() + ms)
  return late
end
function Sleeper:sleep_until(t)
  local late = sleeper_until(self, "sleep_until", t, not aimable(t) and t or nil)
  return late
end
function M.sleeper(strategy)
  local object = new(Sleeper, core.sleeper(strategy))
  return object
end

local Deadline = class("deadline")
for _, name in ipairs({ "remaining", "passed", "at" }) do
  method(Deadline, "deadline", name)
end
function M.deadline(ms)
  local object = new(Deadline, core.deadline(ms))
  return object
end

local Ticker = class("ticker")
for _, name in ipairs({ "next_index", "missed", "period", "policy", "deadline_of" }) do
  method(Ticker, "ticker", name)
end
-- The tick's index, its lateness in ms and the ticks missed just before it.
function Ticker:tick()
  if getmetatable(self) ~= Ticker then
    error("ticker:tick: called without its object (use a colon: x:tick())", 2)
  end
  local handle = self[HANDLE]
  local index, deadline, woke, missed = handle:tick_ahead(back)
  return index, last_stretch(woke, deadline), missed
end
function M.ticker(period, options)
  local object = new(Ticker, core.ticker(period, options))
  return object
end

-- Real-time controls (src/rt.rs). Each raises the library's message, which names the fix.
M.rt = {
  set_realtime_priority = checked(core.rt.set_realtime_priority),
  set_normal_scheduling = checked(core.rt.set_normal_scheduling),
  current_scheduling = checked(core.rt.current_scheduling),
  priority_range = core.rt.priority_range,
  timer_slack = checked(core.rt.timer_slack),
  set_timer_slack = checked(core.rt.set_timer_slack),
  set_affinity = checked(core.rt.set_affinity),
  available_cpus = checked(core.rt.available_cpus),
  lock_memory = checked(core.rt.lock_memory),
  unlock_memory = checked(core.rt.unlock_memory),
}

-- The /dev/cpu_dma_latency hold: withdrawn by :release(), at the end of a `<close>`
-- variable's scope (Lua 5.4), or when the collector takes the handle (its userdata drops
-- the request, on every Lua version).
local DmaLatency = class("rt.dma_latency")
for _, name in ipairs({ "release", "held", "latency" }) do
  method(DmaLatency, "dma_latency", name)
end
DmaLatency.__close = function(self)
  self[HANDLE]:release()
end
function M.rt.dma_latency(ms)
  local object = new(DmaLatency, core.rt.dma_latency(ms))
  return object
end

-- The pump a wait runs before each sleep (src/pump.rs): `pump` or `before_sleep` from the
-- options, `false` for none, else Cheat Engine's own looked up now. Raises at the line that
-- called the public function (level 3 from here).
local function pump_for(func, options)
  local pump, name = core.pump(func, options)
  if pump == nil then
    error(name, 3)
  end
  return pump or nil, name
end

function M.default_pump()
  local pump, name = pump_for("punctual.default_pump", nil)
  return name, pump
end

-- The failures of poll_until and wait.
local PollError = {}
PollError.__index = PollError
PollError.__tostring = function(e)
  local func = e.func or "punctual.poll_until"
  local took
  if e.polls then
    took = format("after %.3f ms and %d poll%s", e.elapsed, e.polls, e.polls == 1 and "" or "s")
  else
    took = format("after %.3f ms", e.elapsed)
  end
  if e.kind == "timeout" then
    return format("%s: timed out %s (timeout %s ms)", func, took, tostring(e.timeout))
  elseif e.kind == "pump" then
    return format("%s: the pump (%s) failed %s: %s", func, tostring(e.pump), took, tostring(e.reason))
  end
  return format("%s: the condition failed %s: %s", func, took, tostring(e.reason))
end
M.PollError = PollError

local function pack(...)
  return { n = select("#", ...), ... }
end

function M.poll_until(condition, options)
  if type(condition) ~= "function" then
    error(format("punctual.poll_until: bad argument 'condition' (a function expected, got %s)", type(condition)), 2)
  end
  local pump, pump_name = pump_for("punctual.poll_until", options)
  local results, failure, failed_in
  -- Never raises: nil is "not yet", true is done (values kept), false is failed (error kept).
  local function poll()
    if failed_in then
      return false
    end
    local r = pack(pcall(condition))
    if not r[1] then
      failure, failed_in = r[2], "failed"
      return false
    end
    if r[2] then
      results = r
      return true
    end
    return nil
  end
  local guarded_pump = pump and function()
    local ok, err = pcall(pump)
    if not ok then
      failure, failed_in = err, "pump"
    end
  end
  local outcome, elapsed, polls = core.poll_until(poll, guarded_pump, options)
  if outcome == nil then
    error(elapsed, 2)
  elseif outcome == "done" then
    return unpack(results, 2, results.n)
  end
  local e = { elapsed = elapsed, polls = polls, timeout = options and options.timeout, pump = pump_name }
  if outcome == "timeout" then
    e.kind = "timeout"
  else
    e.kind, e.reason = failed_in, failure
  end
  error(setmetatable(e, PollError), 2)
end

-- A sleep of `ms` that pumps every step: returns the lateness (ms) and the pump's name.
function M.wait(ms, options)
  local pump, pump_name = pump_for("punctual.wait", options)
  local failure
  -- Never raises: true when the pump ran, false when it raised (the error kept).
  local guarded_pump = pump and function()
    local ok, err = pcall(pump)
    if not ok then
      failure = err
    end
    return ok
  end
  local outcome, value = core.wait(ms, guarded_pump, options)
  if outcome == nil then
    error(value, 2)
  elseif outcome == "done" then
    return value, pump_name
  end
  local e = { kind = "pump", func = "punctual.wait", elapsed = value, pump = pump_name, reason = failure }
  error(setmetatable(e, PollError), 2)
end

return M
