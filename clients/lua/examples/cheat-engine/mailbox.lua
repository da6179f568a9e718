-- The Cheat Engine post's mailbox poll (its section 6), with punctual.
--
-- A DLL injected into the target answers commands through a mailbox in its memory: the
-- script writes a command, then watches the status byte at MAILBOX + STATUS_OFF until the
-- DLL sets it to 1. The post's loop counted 10,000 sleep(1) as "10 seconds" and sat for 155
-- (each sleep(1) costs a whole 15.6 ms tick), with the window white throughout. Here:
--
--   * a real deadline: punctual.poll_until's timeout is milliseconds on a clock;
--   * Cheat Engine's pump before every sleep, feature-tested (processMessagesPaintOnly,
--     else processMessages): poll_until does it when `pump` is left out;
--   * the two ways it fails, told apart: the DLL never answering within the timeout (and
--     whether it ever picked the command up: a status still 0 is usually a stale mailbox
--     address) versus the DLL's own error, status 0xFF (it took the command and wedged);
--   * every failure returns before the success path, so nothing after this script's
--     success (closing the Lua Engine window, say) runs after an error.
--
-- In Cheat Engine: put punctual.dll where `require` finds it (README.md beside this file),
-- set MAILBOX below to your DLL's mailbox, write your command, execute.
local punctual = require "punctual"

local options = ... or {} -- the tests pass their own; Cheat Engine passes nothing

local MAILBOX = options.mailbox or getAddressSafe("mailbox") -- a symbol, "mydll.dll+1234", or a number
local STATUS_OFF = options.status_off or 0x10
local TIMEOUT_MS = options.timeout or 10000
-- punctual's sleep(5) costs 5 ms, not a tick: 200 polls a second, each a readBytes and a pump.
local STEP_MS = 5

local STATUS = { NOT_PICKED_UP = 0, DONE = 1, WEDGED = 0xFF }

if MAILBOX == nil then
  print("mailbox: no address for the mailbox (is the DLL injected? is the symbol right?)")
  return false, "no mailbox"
end

-- (Write your command into the mailbox here, as your DLL expects.)

local last_status
local function answered()
  -- `false`: the byte as a number. With `true` readBytes returns a table, which is never
  -- equal to 1: the loop would always time out.
  local status = readBytes(MAILBOX + STATUS_OFF, 1, false)
  last_status = status
  if status == nil then
    error({ why = "unreadable", message = "the mailbox address is not readable" })
  elseif status == STATUS.DONE then
    return true
  elseif status == STATUS.WEDGED then
    error({ why = "wedged", message = "the DLL took the command and wedged (status 0xFF)" })
  end
  -- 0: not picked up yet; anything else: the DLL is working on it. Poll again.
end

local start = punctual.now()
local ok, err = pcall(punctual.poll_until, answered, { timeout = TIMEOUT_MS, step = STEP_MS })

if not ok then
  if type(err) ~= "table" or err.kind == nil then
    print("mailbox: " .. tostring(err)) -- a bad option: the script's own bug
    return false, "error"
  elseif err.kind == "timeout" then
    if last_status == STATUS.NOT_PICKED_UP then
      print(string.format(
        "mailbox timeout after %.0f ms: the DLL never picked the command up (a stale mailbox address?)",
        err.elapsed))
    else
      print(string.format(
        "mailbox timeout after %.0f ms: the DLL took the command (status %s) but did not answer",
        err.elapsed, tostring(last_status)))
    end
    return false, "timeout" -- a timeout IS an error: return, do not fall through
  elseif err.kind == "failed" then
    local reason = err.reason
    print("mailbox: " .. (type(reason) == "table" and reason.message or tostring(reason)))
    return false, type(reason) == "table" and reason.why or "error"
  end
  print(tostring(err)) -- kind "pump": Cheat Engine's pump itself raised
  return false, "pump"
end

print(string.format("mailbox: the DLL answered after %.1f ms (pump: %s)",
  punctual.now() - start, (punctual.default_pump())))
-- Success path: only reached when the DLL answered.
return true
