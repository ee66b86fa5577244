-- Throttles, with the API and keyspace of qless-core's throttle branch: a
-- throttle lets at most `maximum` jobs hold its lock at once (0: no limit).
--   ql:th:<tid>          hash: id, maximum (may expire)
--   ql:th:<tid>-locks    the jids holding a lock, scored by when they took it
--   ql:th:<tid>-pending  the jids waiting for a lock, scored by their place
--                        in their queue's work set (first in line highest)
-- A job's throttles are those it was put with (the job field 'throttles',
-- a JSON array, present only then) and its queue's own, ql:q:<queue>, while
-- that throttle is set. A job with a full throttle waits in state
-- 'throttled', in ql:q:<queue>-throttled and that throttle's pending set,
-- until a lock holder lets go. So a job without throttles touches none of
-- this: no field, no key, the same replies. Serving a client's own build
-- (stock) none of it runs.

local TH = 'ql:th:'
local THROTTLE_SHAPE = {2, 'id', 'maximum'}
-- A queue's counts (COUNTS_SHAPE's table) with throttled set after.
local COUNTS_THROTTLED_SHAPE = {8, 'name', 'waiting', 'stalled', 'running',
  'scheduled', 'depends', 'recurring', 'paused', 'throttled'}

local function need_tid(tid)
  if tid == nil then error('Throttle(): no tid provided', 0) end
end

local function throttle_max(tid)
  return tonumber(call('hget', TH .. tid, 'maximum') or 0) or 0
end

-- The throttle id of qname's own throttle when that is set, else nil.
local function queue_throttle(qname)
  local qtid = 'ql:q:' .. qname
  if call('exists', TH .. qtid) == 1 then
    return qtid
  end
  return nil
end

-- The throttles a job must hold to run: raw is its 'throttles' field
-- (false when it has none), qtid its queue's throttle or nil. nil: none.
local function throttle_ids(raw, qtid)
  local tids = raw and decode(raw) or nil
  if qtid then
    tids = tids or {}
    for _, tid in ipairs(tids) do
      if tid == qtid then
        return tids
      end
    end
    tids[#tids + 1] = qtid
  end
  return tids
end

-- Whether tid has no room for jid (a lock jid holds already leaves room).
local function throttle_full(tid, jid)
  local max = throttle_max(tid)
  if max <= 0 then
    return false
  end
  local lkey = TH .. tid .. '-locks'
  return call('zcard', lkey) >= max and not call('zscore', lkey, jid)
end

-- The first of tids with no room for jid, or nil when all have room.
local function throttle_blocking(tids, jid)
  for _, tid in ipairs(tids) do
    if throttle_full(tid, jid) then
      return tid
    end
  end
  return nil
end

local function throttles_lock(now, jid, tids)
  for _, tid in ipairs(tids) do
    call('zadd', TH .. tid .. '-locks', 'NX', now, jid)
  end
end

-- jid waits for tid: out of the work set (the caller's part), into its
-- queue's throttled set and tid's pending set at place score.
local function throttle_pend(now, qname, jid, tid, score)
  call('zadd', TH .. tid .. '-pending', score, jid)
  call('zadd', 'ql:q:' .. qname .. '-throttled', now, jid)
  local key = 'ql:j:' .. jid
  if call('hget', key, 'state') ~= 'throttled' then
    call('hset', key, 'state', 'throttled')
    history_add(now, jid, 'throttled', {queue = qname})
  end
end

-- A throttled job goes back to its place in its queue's work set (a write
-- there, which wakes a waiting bpop), to try its throttles at the next pop.
local function unthrottle(jid, score)
  local key = 'ql:j:' .. jid
  local v = call('hmget', key, 'queue', 'state')
  if v[2] ~= 'throttled' then
    return -- gone, or moved on since
  end
  call('zrem', 'ql:q:' .. v[1] .. '-throttled', jid)
  call('zadd', qkeys(v[1])[1], score, jid)
  call('hset', key, 'state', 'waiting')
end

-- Lets as many of tid's pending jobs back to work as it has room for,
-- first in line first.
local function throttle_refill(tid)
  local pkey = TH .. tid .. '-pending'
  local max, last = throttle_max(tid), -1
  if max > 0 then
    last = max - call('zcard', TH .. tid .. '-locks') - 1
    if last < 0 then
      return
    end
  end
  local waiting = call('zrevrange', pkey, 0, last, 'WITHSCORES')
  if #waiting == 0 then
    return
  end
  for i = 1, #waiting, 2 do
    call('zrem', pkey, waiting[i])
    unthrottle(waiting[i], waiting[i + 1])
  end
end

-- jid gives up its place in tid, a lock or a wait. back: a waiting job
-- goes back to work (throttle.release) rather than being left without a
-- way out; otherwise the job is leaving its queue and its caller moves it.
local function throttle_release_one(tid, jid, back)
  local base = TH .. tid
  if call('zrem', base .. '-locks', jid) == 0 then
    local score = back and call('zscore', base .. '-pending', jid)
    if call('zrem', base .. '-pending', jid) == 1 and score then
      unthrottle(jid, score)
    end
  end
  throttle_refill(tid)
end

-- A job leaves qname (done, failed, retried, released, timed out,
-- canceled or put again): it gives up its throttles, raw being its
-- 'throttles' field. The queue's throttle is looked at only when it has
-- locks or waiting jobs, so other jobs cost one EXISTS.
local function throttles_release(jid, qname, raw)
  if stock or not qname or qname == '' then
    return
  end
  local qtid = 'ql:q:' .. qname
  local queued = call('exists', TH .. qtid .. '-locks', TH .. qtid .. '-pending') > 0
  if not (raw or queued) then
    return
  end
  if raw then
    for _, tid in ipairs(decode(raw)) do
      throttle_release_one(tid, jid, false)
    end
  end
  if queued then
    throttle_release_one(qtid, jid, false)
  end
  call('zrem', 'ql:q:' .. qname .. '-throttled', jid)
end

-- A job waiting for a throttle takes the place in line its new priority
-- gives it, as it would in the work set (there priority sets the score).
local function throttled_priority(jid, qname, score)
  if stock then
    return
  end
  local v = call('hmget', 'ql:j:' .. jid, 'state', 'throttles')
  if v[1] ~= 'throttled' then
    return
  end
  for _, tid in ipairs(throttle_ids(v[2], 'ql:q:' .. qname)) do
    call('zadd', TH .. tid .. '-pending', 'XX', score, jid)
  end
end

-- The option throttles of put and recur (fn names it in the error): a JSON
-- array of throttle ids. Returns the text to store, nil for none given
-- (or []).
local function throttles_option(v, fn)
  if v == nil then
    return nil
  end
  local list = rate.name_list(v, fn, 'throttles', 'throttle ids')
  if #list == 0 then
    return nil
  end
  return encode(list)
end

local function whole_arg(fn, name, v)
  local n = tonumber(v)
  if not n or n < 0 or n ~= floor(n) or n == HUGE then
    error(fn .. '(): Arg "' .. name .. '" not a whole number, 0 or more: ' .. tostring(v), 0)
  end
  return n
end

-- expiration: seconds until the throttle's hash goes; 0 leaves its TTL as
-- it is (so setting the maximum keeps an expiration set before).
local function throttle_set(fn, tid, max, expiration)
  need_tid(tid)
  local m = whole_arg(fn, 'max', max)
  local e = whole_arg(fn, 'expiration', expiration or 0)
  call('hset', TH .. tid, 'id', tid, 'maximum', m)
  if e > 0 then
    call('expire', TH .. tid, e)
  end
  throttle_refill(tid)
end

local function throttle_get_json(tid)
  need_tid(tid)
  return shaped_json(THROTTLE_SHAPE, {id = tid, maximum = throttle_max(tid)})
end

-- Deleting a throttle lifts its limit: its waiting jobs go back to work.
local function throttle_delete(tid)
  need_tid(tid)
  call('del', TH .. tid)
  throttle_refill(tid)
end

-- pop's take when throttles or rates may be in play: jids[first + 1 ..]
-- came from the top of qname's work set (those before are lost locks
-- handed out again, which keep their locks and start no rate). Each job
-- locks all its throttles, or when one is full waits for it; a job with
-- a rate (rate.lua) that has no room stays in the work set, passed over;
-- either way the next job in line is taken instead, until count jobs are
-- taken or the work set is used up. While the queue's own throttle is
-- full, or its own rate has no room, no more work is taken: those jobs
-- stay waiting in the work set. Returns how many of jids are kept.
local function throttled_take(now, qname, jids, first, count)
  local qtid, qrid = queue_throttle(qname), rate.queue_rate(qname)
  local work = qkeys(qname)[1]
  local kept, passed, i = first, 0, first + 1
  while i <= #jids do
    local jid = jids[i]
    if (qtid and throttle_full(qtid, jid)) or (qrid and not rate.room(now, qrid)) then
      break
    end
    local v = call('hmget', 'ql:j:' .. jid, 'throttles', 'rates')
    local tids = throttle_ids(v[1], qtid)
    local full = tids and throttle_blocking(tids, jid)
    local rates = rate.names(v[2])
    if full then
      throttle_pend(now, qname, jid, full, call('zscore', work, jid))
      call('zrem', work, jid)
    elseif rates and not rate.rates_room(now, rates) then
      passed = passed + 1
    else
      if tids then
        throttles_lock(now, jid, tids)
      end
      for _, name in ipairs(rates or {}) do
        if name ~= qrid then -- the queue's own is started below
          rate.start(now, name, jid)
        end
      end
      if qrid then
        rate.start(now, qrid, jid)
      end
      kept = kept + 1
      jids[kept] = jid
    end
    if i == #jids and kept < count then
      -- The next in line: past the jobs kept, which are still at the top,
      -- and those passed over, which stay.
      local from = kept - first + passed
      local more = call('zrevrange', work, from, from + count - kept - 1)
      for k = 1, #more do
        jids[i + k] = more[k]
      end
    end
    i = i + 1
  end
  for k = #jids, kept + 1, -1 do
    jids[k] = nil
  end
  return kept
end

-- put's placing of a job bound for qname's work set: with a full
-- throttle it waits instead. raw is the throttles it was put with.
-- Returns true when it was placed here.
local function throttled_put(now, qname, jid, raw, priority)
  if stock then
    return false
  end
  local tids = throttle_ids(raw, queue_throttle(qname))
  local full = tids and throttle_blocking(tids, jid)
  if not full then
    return false
  end
  throttle_pend(now, qname, jid, full, priority - (now / 10000000000))
  return true
end
