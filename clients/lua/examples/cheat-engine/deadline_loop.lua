-- The Cheat Engine post's section 1: `for i = 1, 10000 do sleep(1) end` was meant as 10
-- seconds and took 155, with Cheat Engine frozen throughout. Two bugs: sleep(1) costs a
-- whole 15.6 ms tick, so an iteration is not a millisecond; and sleep pumps nothing.
--
-- This script first shows the price on your machine (a few sleep(1) against
-- punctual.sleep(1)), then runs the loop right: the budget is a deadline, not an iteration
-- count, each iteration pumps (Cheat Engine's pump, feature-tested), and punctual.sleep(1)
-- costs 1 ms. It ends when the deadline has passed: never before, whatever an iteration
-- cost.
--
-- Blocks Cheat Engine's Lua for the 10 s budget, painted but not clickable (the
-- paint-only pump cannot re-enter your script; see the post's section 5).
local punctual = require "punctual"

local options = ... or {} -- the tests pass their own; Cheat Engine passes nothing

local BUDGET_MS = options.budget or 10000
local COMPARE = options.compare or 100 -- sleeps of each kind timed first: 1.6 s of sleep(1)

-- 1. The price of an iteration.
local t = punctual.now()
for _ = 1, COMPARE do
  sleep(1)
end
local ce_ms = (punctual.now() - t) / COMPARE
t = punctual.now()
for _ = 1, COMPARE do
  punctual.sleep(1)
end
local punctual_ms = (punctual.now() - t) / COMPARE
print(string.format("sleep(1) costs %.3f ms, punctual.sleep(1) %.3f ms: 10000 iterations take %.1f s or %.1f s",
  ce_ms, punctual_ms, ce_ms * 10, punctual_ms * 10))

-- 2. The loop, right.
local pump_name, pump = punctual.default_pump() -- processMessagesPaintOnly, else processMessages
local start = punctual.now()
local deadline = punctual.deadline(BUDGET_MS)
local iterations = 0
while not deadline:passed() do
  iterations = iterations + 1
  -- One iteration's work goes here: a readBytes, an aobscan, ...
  if pump then
    pump() -- before the sleep, so the window repaints before it goes dark
  end
  punctual.sleep(math.min(1, deadline:remaining()))
end
local took = punctual.now() - start
print(string.format("%d iterations in %.1f ms for a %d ms budget (pump: %s)", iterations, took, BUDGET_MS, pump_name))

return took, iterations
