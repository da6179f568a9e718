-- The Cheat Engine post's sections 3 and 7 on your machine: "what number do I put in
-- sleep()?". It checks the ruler (getTickCount moves in whole ticks; punctual.now() in
-- nanoseconds), times Cheat Engine's own sleep(n) back to back with punctual's clock, and
-- prints the verdict: whether sleep is quantised, the tick, and the mid-band requests
-- round(tick * k - tick / 2), the safest from a tick edge's jitter.
--
-- Blocks Cheat Engine for about 1.2 s (the probe's sleeps), as sleep itself does.
local punctual = require "punctual"

local options = ... or {} -- the tests pass their own; Cheat Engine passes nothing

-- 1. The ruler. Wait for getTickCount to move, then time one whole step of it.
local function next_change(from)
  local t = getTickCount()
  while t == from do
    t = getTickCount()
  end
  return t
end
local edge = next_change(getTickCount())
local a = punctual.now()
local step = next_change(edge) - edge
local b = punctual.now()
print(string.format("getTickCount moves in steps of %d ms (%.3f ms on punctual.now(), which reads in ns)",
  step, b - a))

-- 2. Cheat Engine's sleep, timed by the module's clock.
-- (options.clock: the tests' emulated clock; in Cheat Engine the probe reads punctual.now().)
local verdict = punctual.probe({ sleep = sleep, clock = options.clock, samples = options.samples })
print("sleep(n) back to back:")
for _, row in ipairs(verdict.costs) do
  print(string.format("  sleep(%2d)  %7.3f ms", row.request, row.cost))
end

-- 3. What to put in sleep(n).
local sheet
if verdict.quantized then
  print(string.format("sleep is quantised: one tick is %.3f ms; sleep(1) costs %.3f ms at least",
    verdict.quantum, verdict.floor))
  sheet = punctual.cheat_sheet(verdict.quantum, options.bands or 10)
  print("   k  sleep(n)   costs       rate")
  for _, row in ipairs(sheet) do
    print(string.format("  %2d  sleep(%3d)  %7.1f ms  %5.1f Hz", row.k, row.request, row.actual, row.rate_hz))
  end
  print("avoid n near a tick multiple (" .. string.format("%.3f, %.3f, ...", verdict.quantum, 2 * verdict.quantum)
    .. "): it costs one tick or two by chance")
else
  print(string.format("sleep is not quantised here: it costs about n + %.3f ms", verdict.overshoot))
end
-- Or skip the table: punctual.sleep(1) costs 1 ms, and punctual.poll_until / punctual.wait
-- keep a real deadline whatever a step costs.

return verdict, sheet
