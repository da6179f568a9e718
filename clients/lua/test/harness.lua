-- What every test script here shares (dofile'd from the script's own folder): `test(name,
-- body)` runs one test, counting it and printing its failure; `finish()` prints the closing
-- "N passed, N failed" line, which CI reads, and exits 1 when any failed.
local M = { passed = 0, failed = 0 }

function M.test(name, body)
  local ok, err = pcall(body)
  if ok then
    M.passed = M.passed + 1
  else
    M.failed = M.failed + 1
    print("FAIL " .. name .. ": " .. tostring(err))
  end
end

function M.finish()
  print(string.format("%d passed, %d failed", M.passed, M.failed))
  os.exit(M.failed == 0 and 0 or 1)
end

return M
