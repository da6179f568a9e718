-- The Cheat Engine post's section 1 loop with the module: 10,000 x sleep(1), which Cheat
-- Engine's own sleep takes ~155 s to do on Windows' 15.6 ms tick. A benchmark, not a test:
--   lua5.4 clients/lua/bench/sleep_loop.lua [COUNT] [MS] [STRATEGY]
-- (from the directory holding punctual.so; punctual.dll and lua.exe under Wine). Prints the
-- loop's time on punctual.now() and the overshoot against COUNT x MS.
local punctual = require "punctual"
local count = tonumber(arg and arg[1]) or 10000
local ms = tonumber(arg and arg[2]) or 1
local strategy = arg and arg[3]

local sleep = punctual.sleep
if strategy then
  local sleeper = punctual.sleeper(strategy)
  sleep = function(t)
    return sleeper:sleep(t)
  end
end

local t0 = punctual.now()
local c0 = os.clock()
for _ = 1, count do
  sleep(ms)
end
local elapsed = punctual.now() - t0
local cpu = os.clock() - c0
local budget = count * ms
print(string.format(
  "%s: %d x sleep(%g) (%s): %.1f ms, %.2f%% over %.0f ms; CPU %.1f s",
  _VERSION .. (jit and (" " .. jit.version) or ""), count, ms, strategy or "hybrid",
  elapsed, (elapsed - budget) / budget * 100, budget, cpu))
