-- Workers: the ql:workers registry and each worker's ql:w:<name>:jobs set.

-- Forgets workers idle for longer than max-worker-age, then reports either
-- one worker's jobs or every worker's counts.
local function workers(now, worker)
  local interval = tonumber(config('max-worker-age', 86400))
  local old = call('zrangebyscore', 'ql:workers', 0, now - interval)
  if #old > 0 then
    for i = 1, #old do
      old[i] = 'ql:w:' .. old[i] .. ':jobs'
    end
    call('del', unpack(old))
    call('zremrangebyscore', 'ql:workers', 0, now - interval)
  end
  if worker then
    local wkey = 'ql:w:' .. worker .. ':jobs'
    return {
      jobs    = call('zrevrangebyscore', wkey, now + 8640000, now),
      stalled = call('zrevrangebyscore', wkey, now, 0),
    }
  end
  local response = {}
  for i, name in ipairs(call('zrevrange', 'ql:workers', 0, -1)) do
    local wkey = 'ql:w:' .. name .. ':jobs'
    response[i] = {
      name    = name,
      jobs    = call('zcount', wkey, now, now + 8640000),
      stalled = call('zcount', wkey, 0, now),
    }
  end
  return response
end
