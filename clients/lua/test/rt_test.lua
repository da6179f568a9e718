-- punctual.rt for real, on every host: run from the directory holding punctual.so /
-- punctual.dll, as punctual_test.lua is. Plain asserts; the last line is "N passed, N failed".
--
-- As root on Linux (CI runs as root) each control is granted and checked against the
-- kernel's account (/proc, the device), and the refusals are taken by a child dropped to
-- nobody (prlimit, setpriv). Without root those tests print SKIPPED and pass, or fail with
-- PUNCTUAL_REQUIRE_PRIVILEGED=1 (scripts/test sets it), so a run that lost its privileges
-- cannot pass for one that had them. On Windows the controls it lacks must say so.
local punctual = require "punctual"
local rt = punctual.rt

local here = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
local harness = dofile(here .. "/harness.lua")
local test = harness.test

local function rejects(label, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, label .. " was accepted")
  assert(type(err) == "string", label .. ": error is a " .. type(err))
  return err
end

local windows = package.config:sub(1, 1) == "\\"
local DMA = "/dev/cpu_dma_latency"

-- os.execute's success in every version: a number in 5.1 and LuaJIT without 5.2 compat,
-- true or nil after.
local function succeeds(command)
  local result = os.execute(command)
  return result == true or result == 0
end

local function output_of(command)
  local pipe = assert(io.popen(command))
  local out = pipe:read("*a")
  pipe:close()
  return out
end

local function exists(path)
  local file = io.open(path, "rb")
  if file then
    file:close()
  end
  return file ~= nil
end

-- Linux, as root: what the granted and refused paths need. Otherwise, the reason.
local function root_or_skip(name)
  if windows then
    print("SKIPPED " .. name .. ": the kernel's account is read on Linux")
    return false
  end
  if output_of("id -u"):match("^%s*(%d+)") == "0" then
    return true
  end
  if os.getenv("PUNCTUAL_REQUIRE_PRIVILEGED") == "1" then
    error(name .. " needs root; PUNCTUAL_REQUIRE_PRIVILEGED=1 makes that a failure", 0)
  end
  print("SKIPPED " .. name .. ": run as root")
  return false
end

-- This process's id: the field before the command in /proc/self/stat.
local function pid()
  local stat = assert(io.open("/proc/self/stat")):read("*a")
  return stat:match("^(%d+)")
end

-- (rt_priority, policy) of the calling (main) thread: /proc/self/stat fields 40 and 41.
local function kernel_scheduling()
  local stat = assert(io.open("/proc/self/stat")):read("*a")
  local fields = {}
  for field in stat:match(".*%)(.*)"):gmatch("%S+") do
    fields[#fields + 1] = field
  end
  return tonumber(fields[40 - 2]), tonumber(fields[41 - 2])
end

local function locked_kib()
  for line in io.lines("/proc/self/status") do
    local kib = line:match("^VmLck:%s+(%d+)")
    if kib then
      return tonumber(kib)
    end
  end
end

local function dma_descriptors()
  local count = 0
  for _ in output_of("ls -l /proc/" .. pid() .. "/fd"):gmatch(DMA) do
    count = count + 1
  end
  return count
end

test("rt: bad values change nothing, and say so", function()
  local low, high = rt.priority_range()
  assert(low == 1 and high == 99, "range " .. tostring(low) .. " to " .. tostring(high))
  local before = rt.current_scheduling()
  for _, case in ipairs({
    { "priority 0", rt.set_realtime_priority, 0, "out of range" },
    { "priority 100", rt.set_realtime_priority, 100, "out of range" },
    { "priority 1.5", rt.set_realtime_priority, 1.5, "whole number" },
    { "priority 'x'", rt.set_realtime_priority, "x", "got string" },
    { "priority nil", rt.set_realtime_priority, nil, "got nil" },
    { "latency -1", rt.dma_latency, -1, "0 ms or more" },
    { "latency NaN", rt.dma_latency, 0 / 0, "NaN" },
    { "latency '0'", rt.dma_latency, "0", "got string" },
  }) do
    local err = rejects(case[1], case[2], case[3])
    assert(err:find(case[4], 1, true), case[1] .. ": '" .. err .. "' does not say '" .. case[4] .. "'")
    assert(err:find("punctual.rt.", 1, true), case[1] .. ": '" .. err .. "' names no function")
  end
  local after = rt.current_scheduling()
  assert(after.policy == before.policy and after.priority == before.priority)
end)

test("rt: the current scheduling is described", function()
  local now = rt.current_scheduling()
  assert(type(now.policy) == "string" and now.policy ~= "", tostring(now.policy))
  assert(type(now.priority) == "number" and type(now.realtime) == "boolean")
end)

test("rt: bad slacks and cpu sets are refused, naming the function", function()
  for _, case in ipairs({
    { "slack 0", rt.set_timer_slack, 0, "timer slack" },
    { "slack -1", rt.set_timer_slack, -1, "0 ms or more" },
    { "slack NaN", rt.set_timer_slack, 0 / 0, "NaN" },
    { "slack '1'", rt.set_timer_slack, "1", "got string" },
    { "cpus nil", rt.set_affinity, nil, "got nil" },
    { "cpus 0", rt.set_affinity, 0, "got number" },
    { "cpus {}", rt.set_affinity, {}, "affinity" },
    { "cpus {-1}", rt.set_affinity, { -1 }, "whole number" },
    { "cpus {0.5}", rt.set_affinity, { 0.5 }, "whole number" },
    { "cpus {1e6}", rt.set_affinity, { 1000000 }, "affinity" },
  }) do
    local err = rejects(case[1], case[2], case[3])
    assert(err:find(case[4], 1, true), case[1] .. ": '" .. err .. "' does not say '" .. case[4] .. "'")
    assert(err:find("punctual.rt.", 1, true), case[1] .. ": '" .. err .. "' names no function")
  end
end)

if not windows then
  test("rt: the timer slack set is the slack read back", function()
    local before = rt.timer_slack()
    assert(rt.set_timer_slack(0.005) == true)
    -- A thread under a real-time policy keeps a slack of zero (prctl(2)).
    local expected = rt.current_scheduling().realtime and 0 or 0.005
    local slack = rt.timer_slack()
    if before > 0 then
      rt.set_timer_slack(before)
    end
    assert(math.abs(slack - expected) < 1e-9, "slack " .. slack .. " ms, expected " .. expected)
  end)
end

test("rt: affinity to one cpu and back to all", function()
  local every = rt.available_cpus()
  assert(#every >= 1, "no cpu available")
  for i = 2, #every do
    assert(every[i - 1] < every[i], "available_cpus is not in increasing order")
  end
  assert(rt.set_affinity({ every[#every] }) == true)
  local pinned = rt.available_cpus()
  rt.set_affinity(every)
  assert(#pinned == 1 and pinned[1] == every[#every], "pinned to " .. #pinned .. " cpus")
  local after = rt.available_cpus()
  assert(#after == #every, "not back to every cpu")
end)

if windows then
  test("rt: what Windows lacks says so, and its real-time level is granted", function()
    for _, call in ipairs({ rt.lock_memory, function() return rt.dma_latency(0) end }) do
      local err = rejects("a Linux-only control", call)
      assert(err:find("not available", 1, true), err)
    end
    local granted = rt.set_realtime_priority(1)
    assert(granted.realtime and granted.policy == "THREAD_PRIORITY_TIME_CRITICAL", granted.policy)
    assert(not rt.set_normal_scheduling().realtime)
  end)
end

test("rt: SCHED_FIFO takes effect, per the kernel, and normal scheduling undoes it", function()
  if not root_or_skip("rt: SCHED_FIFO") then
    return
  end
  local granted = rt.set_realtime_priority(3)
  local priority, policy = kernel_scheduling()
  local normal = rt.set_normal_scheduling()
  local after_priority, after_policy = kernel_scheduling()
  assert(granted.policy == "SCHED_FIFO" and granted.priority == 3 and granted.realtime)
  assert(priority == 3 and policy == 1, "kernel: rt_priority " .. priority .. ", policy " .. policy)
  assert(normal.policy == "SCHED_OTHER" and not normal.realtime)
  assert(after_priority == 0 and after_policy == 0)
end)

test("rt: memory is locked, per the kernel, and unlocked", function()
  if not root_or_skip("rt: mlockall") then
    return
  end
  assert(rt.lock_memory() == true)
  local locked = locked_kib()
  assert(rt.unlock_memory() == true)
  assert(locked > 0 and locked_kib() == 0, "VmLck " .. locked .. " kB, then " .. locked_kib())
end)

test("rt: the dma latency request holds until released, closed or collected", function()
  if not root_or_skip("rt: " .. DMA) then
    return
  end
  if not exists(DMA) then
    print("SKIPPED rt: " .. DMA .. ": this kernel has none")
    return
  end
  assert(dma_descriptors() == 0)
  local request = rt.dma_latency(0)
  assert(request:held() and request:latency() == 0 and dma_descriptors() == 1)
  local device = assert(io.open(DMA, "rb"))
  local target = device:read(4)
  device:close()
  assert(target == "\0\0\0\0", "the kernel's latency target is not the request's 0")
  assert(request:release() == true and not request:held() and dma_descriptors() == 0)
  assert(request:release() == true, "a second release does nothing")
  assert(rt.dma_latency(0.01):latency() == 0.01)
  collectgarbage()
  collectgarbage()
  assert(dma_descriptors() == 0, "a collected request is withdrawn")
  assert(tostring(rt.dma_latency(0)):find("punctual.rt.dma_latency", 1, true))
  collectgarbage()
  collectgarbage()
  if _VERSION == "Lua 5.4" and not jit then
    local scoped = assert(load([[
      local rt, count = ...
      do
        local request <close> = rt.dma_latency(0)
        assert(count() == 1)
      end
      assert(count() == 0, "a <close> request is withdrawn at the end of its scope")
    ]]))
    scoped(rt, dma_descriptors)
  end
end)

-- The refusals, in a child dropped to nobody with no real-time or memory-lock allowance.
local CHILD = [[
package.cpath = arg[1] .. "/?.so;" .. package.cpath
local rt = require("punctual").rt
for _, case in ipairs({
  { "priority", function() rt.set_realtime_priority(1) end },
  { "memory", function() rt.lock_memory() end },
  { "dma", function() rt.dma_latency(0) end },
}) do
  local ok, err = pcall(case[2])
  io.write(case[1], "\t", ok and "granted" or (tostring(err):gsub("\n", " ")), "\n")
end
]]

test("rt: refusals raise the library's message naming the fix", function()
  if not root_or_skip("rt: refusals as nobody") then
    return
  end
  if not (succeeds("command -v setpriv >/dev/null") and succeeds("command -v prlimit >/dev/null")) then
    print("SKIPPED rt: refusals as nobody: setpriv and prlimit (util-linux) are not installed")
    return
  end
  local module = package.searchpath and package.searchpath("punctual", package.cpath) or "./punctual.so"
  local dir = output_of("mktemp -d /tmp/punctual-lua-rt-XXXXXX"):match("%S+")
  local ok, err = pcall(function()
    local copy = assert(io.open(dir .. "/punctual.so", "wb"))
    copy:write(assert(io.open(module, "rb")):read("*a"))
    copy:close()
    local child = assert(io.open(dir .. "/child.lua", "w"))
    child:write(CHILD)
    child:close()
    assert(succeeds("chmod 755 " .. dir .. " && chmod 644 " .. dir .. "/*"))
    local lua = arg[-1] or "lua5.4"
    local out = output_of(
      "prlimit --rtprio=0:0 --memlock=65536:65536 setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "
        .. lua .. " " .. dir .. "/child.lua " .. dir .. " 2>&1"
    )
    local found = {}
    for name, message in out:gmatch("(%a+)\t([^\n]*)") do
      found[name] = message
    end
    local fixes = { priority = "CAP_SYS_NICE", memory = "CAP_IPC_LOCK", dma = DMA }
    for name, fix in pairs(fixes) do
      local message = found[name]
      assert(message, name .. ": no answer from the child: " .. out)
      if name == "dma" and not exists(DMA) then
        assert(message:find("not available", 1, true), message)
      else
        assert(message ~= "granted", name .. " was granted to nobody")
        assert(message:find("permission denied", 1, true) and message:find(fix, 1, true), name .. ": " .. message)
        assert(message:find("child.lua:%d+: punctual%.rt%."), name .. ": " .. message)
      end
    end
  end)
  os.execute("rm -rf " .. dir)
  assert(ok, err)
end)

harness.finish()
