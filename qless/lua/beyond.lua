-- What qlessd adds to qless: queue capacity and release. Each refusal here
-- is qlessd's own and stands whichever script was called: a client's own
-- build (stock) is not handed back for it, since that script knows nothing
-- of the limit and would let the call through.

local function refuse(message)
  if stock then
    error({qlessd_refusal = true, message = message}, 0)
  end
  error(message, 0)
end

-- The most jobs qname may hold, 0 for no limit (ql:capacity, queue -> max).
local function capacity_of(qname)
  return tonumber(call('hget', 'ql:capacity', qname) or 0) or 0
end

-- Refuses a put of jid into a full qname; a job already in qname (put
-- again) takes no new place. What counts is every job the queue holds that
-- is not complete or failed: waiting, running, scheduled and depending.
local function capacity_check(qname, oldqueue)
  if oldqueue == qname then
    return
  end
  local max = capacity_of(qname)
  if max <= 0 then
    return
  end
  local keys, held = qkeys(qname), 0
  for i = 1, 5 do
    if i ~= 4 then
      held = held + call('zcard', keys[i])
    end
  end
  if held >= max then
    refuse('Put(): queue ' .. qname .. ' is full (' .. max .. ' jobs)')
  end
end

local function capacity_set(now, qname, max)
  need(qname, 'queue.capacity.set(): Arg "queue" missing')
  local n = tonumber(max)
  if not n or n < 0 or n ~= floor(n) then
    error('queue.capacity.set(): Arg "max" not a whole number, 0 or more: ' .. tostring(max), 0)
  end
  if n == 0 then
    call('hdel', 'ql:capacity', qname)
  else
    call('hset', 'ql:capacity', qname, n)
  end
  return n
end

-- A worker gives a running job back to its queue, at once or after delay
-- seconds, spending no retry and recording no failure.
local function job_release(now, jid, worker, delay)
  need(jid, 'Release(): Arg "jid" missing')
  need(worker, 'Release(): Arg "worker" missing')
  local d = tonumber(delay or 0)
  if not d or d < 0 then
    error('Release(): Arg "delay" not a number, 0 or more: ' .. tostring(delay), 0)
  end
  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'queue', 'state', 'worker', 'priority', 'throttles')
  local qname, state, owner, priority = j[1], j[2], j[3], j[4]
  if not state then
    error('Release(): Job ' .. jid .. ' does not exist', 0)
  elseif state ~= 'running' then
    error('Release(): Job ' .. jid .. ' is not currently running: ' .. state, 0)
  elseif owner ~= worker then
    error('Release(): Job ' .. jid .. ' has been given to another worker: ' .. owner, 0)
  end
  local keys = qkeys(qname)
  call('zrem', keys[2], jid)
  call('zrem', wkey(worker), jid)
  throttles_release(jid, qname, j[5])
  call('hdel', key, 'grace')
  local newstate = 'waiting'
  if d > 0 then
    newstate = 'scheduled'
    call('zadd', keys[3], now + d, jid)
  else
    work_add(qname, now, priority, jid)
  end
  call('hset', key, 'state', newstate, 'worker', '', 'expires', 0)
  history_add(now, jid, 'released', {q = qname})
  publish('ql:log', '{"jid":' .. encode(jid) .. ',"event":"released","queue":' ..
    qstr(qname) .. ',"worker":' .. qstr(worker) .. '}')
  return newstate
end

-- Job TTL: a put with the option ttl <seconds> sets when a job still
-- waiting (for a throttle too) or scheduled is removed. The jid waits in
-- ql:q:<queue>-ttl, scored by that time, and the job hash keeps the time
-- in 'ttl'. Expired jobs are removed when their queue is next popped (or peeked), before any
-- work is taken, so no expired job is handed out.
local STATS_EXPIRED_SHAPE = {5, 'retries', 'failed', 'failures', 'wait', 'run', 'expired'}

local function ttl_key(qname)
  return 'ql:q:' .. qname .. '-ttl'
end

-- Forgets jid's TTL (a put again, into qname or elsewhere).
local function ttl_clear(jid, oldqueue, had_ttl)
  if had_ttl and oldqueue then
    call('zrem', ttl_key(oldqueue), jid)
    call('hdel', 'ql:j:' .. jid, 'ttl')
  end
end

local function ttl_set(now, qname, jid, ttl)
  local at = now + ttl
  call('zadd', ttl_key(qname), at, jid)
  call('hset', 'ql:j:' .. jid, 'ttl', at)
end

-- Removes qname's jobs whose TTL has passed while they wait or are
-- scheduled; a job that has run since, or that others depend on, just
-- loses its TTL.
local function expire_due(now, qname)
  local tkey = ttl_key(qname)
  if call('exists', tkey) == 0 then
    return
  end
  local keys = qkeys(qname)
  for _, jid in ipairs(call('zrangebyscore', tkey, '-inf', now)) do
    call('zrem', tkey, jid)
    local key = 'ql:j:' .. jid
    local j = call('hmget', key, 'state', 'tags', 'throttles')
    -- A job waiting for a throttle (throttle.lua) is waiting too.
    local waiting = j[1] == 'waiting' or j[1] == 'scheduled' or
      (j[1] == 'throttled' and not stock)
    if not waiting or call('scard', key .. '-dependents') > 0 then
      call('hdel', key, 'ttl')
    else
      call('zrem', keys[1], jid)
      call('zrem', keys[3], jid)
      throttles_release(jid, qname, j[3])
      tags_remove(jid, decode(j[2] or '{}'))
      call('del', key, key .. '-history', key .. '-dependencies')
      call('hincrby', 'ql:s:stats:' .. day_bin(now) .. ':' .. qname, 'expired', 1)
      publish('ql:log', '{"jid":' .. encode(jid) .. ',"event":"expired","queue":' .. qstr(qname) .. '}')
      if is_tracked(jid) then
        call('zrem', 'ql:tracked', jid)
        publish('ql:expired', jid)
      end
    end
  end
end
