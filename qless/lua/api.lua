-- The API table and the dispatcher. The chunk made of all files ends here by
-- returning dispatch(fn, now, ...).

local API = {}

API['get'] = function(now, jid)
  need_jid(jid)
  local job = job_read(jid)
  if job then
    return job_json(job)
  end
  return nil
end

API['multiget'] = function(now, ...)
  return jobs_json({...})
end

API['config.get'] = function(now, key)
  if key then
    return config(key)
  end
  local all, shape = config_defaults(), {unpack(CONFIG_SHAPE)}
  local stored = call('hgetall', 'ql:config')
  for i = 1, #stored, 2 do
    all[stored[i]] = stored[i + 1]
    shape[#shape + 1] = stored[i]
  end
  return shaped_json(shape, all)
end

API['config.set'] = function(now, option, value)
  need(option, 'config.set(): Arg "option" missing')
  need(value, 'config.set(): Arg "value" missing')
  publish('ql:log', shaped_json(CONFIG_SET_SHAPE,
    {event = 'config_set', option = option, value = value}))
  call('hset', 'ql:config', option, value)
end

API['config.unset'] = function(now, option)
  need(option, 'config.unset(): Arg "option" missing')
  publish('ql:log', shaped_json(CONFIG_UNSET_SHAPE, {event = 'config_unset', option = option}))
  call('hdel', 'ql:config', option)
end

-- A queue's counts carry throttled only when it has throttled jobs, and
-- rated after only when a rate holds some of its jobs.
local function counts_json(t)
  local shape = t.throttled and COUNTS_THROTTLED_SHAPE or COUNTS_SHAPE
  if t.rated then
    shape = t.throttled and rate.COUNTS_THROTTLED_SHAPE or rate.COUNTS_SHAPE
  end
  return shaped_json(shape, t)
end

API['queues'] = function(now, qname)
  if qname then
    return counts_json(queue_counts(now, qname))
  end
  local response = {}
  for i, name in ipairs(call('zrange', 'ql:queues', 0, -1)) do
    response[i] = queue_counts(now, name)
  end
  if not native then
    return encode(response)
  end
  for i = 1, #response do
    response[i] = counts_json(response[i])
  end
  return texts_json(response)
end

API['complete'] = function(now, jid, ...)
  need_jid(jid)
  return job_complete(now, jid, ...)
end

API['failed'] = function(now, group, start, limit)
  local s = tonumber(start or 0)
  if not s then
    error('Failed(): Arg "start" is not a number: ' .. (start or 'nil'), 0)
  end
  local l = tonumber(limit or 25)
  if not l then
    error('Failed(): Arg "limit" is not a number: ' .. (limit or 'nil'), 0)
  end
  if group then
    local fkey = 'ql:f:' .. group
    return shaped_json(TOTAL_JOBS_SHAPE, {
      total = call('llen', fkey),
      jobs  = call('lrange', fkey, s, s + l - 1)
    })
  end
  local response, shape = {}, {0}
  for i, g in ipairs(call('smembers', 'ql:failures')) do
    response[g] = call('llen', 'ql:f:' .. g)
    shape[i + 1] = g
  end
  return shaped_json(shape, response)
end

API['fail'] = function(now, jid, ...)
  need_jid(jid)
  return job_fail(now, jid, ...)
end

local function number_arg(value, default, message)
  local n = tonumber(value or default)
  if not n then
    error(message .. tostring(value), 0)
  end
  return n
end

API['jobs'] = function(now, state, ...)
  need(state, 'Jobs(): Arg "state" missing')
  if state == 'complete' then
    local offset, count = ...
    offset = number_arg(offset, 0, 'Jobs(): Arg "offset" not a number: ')
    count = number_arg(count, 25, 'Jobs(): Arg "count" not a number: ')
    return call('zrevrange', 'ql:completed', offset, offset + count - 1)
  end
  local qname, offset, count = ...
  need(qname, 'Jobs(): Arg "queue" missing')
  offset = number_arg(offset, 0, 'Jobs(): Arg "offset" not a number: ')
  count = number_arg(count, 25, 'Jobs(): Arg "count" not a number: ')
  local prefix = 'ql:q:' .. qname
  if state == 'running' then
    return call('zrangebyscore', prefix .. '-locks', now, '+inf', 'LIMIT', offset, count)
  elseif state == 'stalled' then
    return call('zrangebyscore', prefix .. '-locks', '-inf', now, 'LIMIT', offset, count)
  elseif state == 'scheduled' then
    check_scheduled(now, qname, nil)
    return call('zrange', prefix .. '-scheduled', offset, offset + count - 1)
  elseif state == 'depends' then
    return call('zrange', prefix .. '-depends', offset, offset + count - 1)
  elseif state == 'recurring' then
    return call('zrangebyscore', prefix .. '-recur', 0, '+inf', 'LIMIT', offset, count)
  elseif state == 'throttled' and not stock then
    return call('zrange', prefix .. '-throttled', offset, offset + count - 1)
  elseif state == 'rated' and not stock then
    -- Waiting jobs a pop now would pass over for a rate, in line order.
    local held, out = {}, {}
    rate.held(now, qname, held)
    for i = offset + 1, offset + count do
      out[#out + 1] = held[i]
    end
    return out
  end
  error('Jobs(): Unknown type "' .. state .. '"', 0)
end

API['retry'] = function(now, jid, ...)
  need_jid(jid)
  return job_retry(now, jid, ...)
end

API['depends'] = function(now, jid, ...)
  need_jid(jid)
  return job_depends(now, jid, ...)
end

API['heartbeat'] = function(now, jid, ...)
  need_jid(jid)
  return job_heartbeat(now, jid, ...)
end

API['workers'] = function(now, worker)
  local w = workers(now, worker)
  if worker then
    return shaped_json(WORKER_JOBS_SHAPE, w)
  end
  return shaped_list_json(WORKER_SHAPE, w)
end

API['track'] = function(now, command, jid)
  local t = track(now, command, jid)
  if command ~= nil then
    return encode(t)
  end
  return shaped_json(TRACKED_SHAPE, t, {jobs = t.texts and texts_json(t.texts)})
end

API['tag'] = tag

API['stats'] = function(now, qname, date)
  need_queue(qname)
  return queue_stats_json(now, qname, date)
end

API['priority'] = function(now, jid, priority)
  need_jid(jid)
  return job_priority(jid, priority)
end

API['log'] = function(now, jid, message, data)
  job_log(now, jid, message, data)
end

API['peek'] = function(now, qname, count)
  need_queue(qname)
  return jobs_json(queue_peek(now, qname, count))
end

API['pop'] = function(now, qname, worker, count)
  need_queue(qname)
  return queue_pop(now, qname, worker, count)
end

API['pause'] = function(now, ...)
  call('sadd', 'ql:paused_queues', ...)
end

API['unpause'] = function(now, ...)
  call('srem', 'ql:paused_queues', ...)
end

API['cancel'] = function(now, ...)
  return job_cancel(...)
end

API['timeout'] = function(now, ...)
  local n = select('#', ...)
  if stock and n > 1 then
    -- qless times the jobs out one by one and stops at the first it cannot,
    -- a jid given twice included.
    local seen = {}
    for i = 1, n do
      local jid = (select(i, ...))
      local j = call('hmget', 'ql:j:' .. jid, 'queue', 'state')
      stock_unless(j[1] and j[2] == 'running' and not seen[jid])
      seen[jid] = true
    end
  end
  for i = 1, n do
    job_timeout(now, (select(i, ...)))
  end
end

API['put'] = function(now, me, qname, ...)
  need_queue(qname)
  return queue_put(now, qname, me, ...)
end

API['requeue'] = function(now, me, qname, jid, ...)
  need_jid(jid)
  if not job_exists(jid) then
    error('Requeue(): Job ' .. jid .. ' does not exist', 0)
  end
  need_queue(qname)
  return queue_put(now, qname, me, jid, ...)
end

API['unfail'] = function(now, qname, group, count)
  need_queue(qname)
  return queue_unfail(now, qname, group, count)
end

API['recur'] = function(now, qname, ...)
  need_queue(qname)
  return recur(now, qname, ...)
end

API['unrecur'] = function(now, jid)
  need_recurring(jid)
  return unrecur(jid)
end

API['recur.get'] = function(now, jid)
  need_recurring(jid)
  return recur_get(jid)
end

API['recur.update'] = function(now, jid, ...)
  need_recurring(jid)
  return recur_update(now, jid, ...)
end

API['recur.tag'] = function(now, jid, ...)
  need_recurring(jid)
  return recur_tag(jid, ...)
end

API['recur.untag'] = function(now, jid, ...)
  need_recurring(jid)
  return recur_untag(jid, ...)
end

API['length'] = function(now, qname)
  need_queue(qname)
  return queue_length(qname)
end

API['worker.deregister'] = function(now, ...)
  call('zrem', 'ql:workers', ...)
end

API['queue.forget'] = function(now, ...)
  call('zrem', 'ql:queues', ...)
end

-- qlessd's own: a client's build has none of these.
API['release'] = function(now, jid, worker, delay)
  stock_unless(false)
  return job_release(now, jid, worker, delay)
end

API['recur.pause'] = function(now, jid)
  stock_unless(false)
  need_recurring(jid)
  return recur_pause(jid)
end

API['recur.resume'] = function(now, jid)
  stock_unless(false)
  need_recurring(jid)
  return recur_resume(now, jid)
end

API['recur.run'] = function(now, jid)
  stock_unless(false)
  need_recurring(jid)
  return recur_run(now, jid)
end

API['queue.capacity.set'] = function(now, qname, max)
  stock_unless(false)
  return capacity_set(now, qname, max)
end

API['queue.capacity.get'] = function(now, qname)
  stock_unless(false)
  need(qname, 'queue.capacity.get(): Arg "queue" missing')
  return capacity_of(qname)
end

-- Removes the queues' jobs whose TTL has passed: what qlessd runs each
-- second for queues with a TTL due; pop and peek do it for their queue.
API['expire'] = function(now, ...)
  stock_unless(false)
  for _, qname in ipairs({...}) do
    expire_due(now, qname)
  end
end

-- Hands back every job worker holds, as its locks expiring would (qless's
-- timeout): what qlessd does when a bound worker's connections are gone.
API['worker.timeout'] = function(now, worker)
  stock_unless(false)
  need(worker, 'worker.timeout(): Arg "worker" missing')
  local n = 0
  for _, jid in ipairs(call('zrange', wkey(worker), 0, -1)) do
    local j = call('hmget', 'ql:j:' .. jid, 'state', 'worker')
    if j[1] == 'running' and j[2] == worker then
      job_timeout(now, jid)
      n = n + 1
    end
  end
  return n
end

-- Throttles (throttle.lua), as qless-core's throttle branch has them.
API['throttle.set'] = function(now, tid, max, expiration)
  stock_unless(false)
  throttle_set('throttle.set', tid, max, expiration)
end

API['throttle.get'] = function(now, tid)
  stock_unless(false)
  return throttle_get_json(tid)
end

API['throttle.delete'] = function(now, tid)
  stock_unless(false)
  throttle_delete(tid)
end

API['throttle.locks'] = function(now, tid)
  stock_unless(false)
  need_tid(tid)
  return call('zrange', TH .. tid .. '-locks', 0, -1)
end

-- First in line first.
API['throttle.pending'] = function(now, tid)
  stock_unless(false)
  need_tid(tid)
  return call('zrevrange', TH .. tid .. '-pending', 0, -1)
end

API['throttle.ttl'] = function(now, tid)
  stock_unless(false)
  need_tid(tid)
  return call('ttl', TH .. tid)
end

-- Takes the jids' locks (or places in line) on tid away, as if they had
-- finished with it.
API['throttle.release'] = function(now, tid, ...)
  stock_unless(false)
  need_tid(tid)
  for i = 1, select('#', ...) do
    throttle_release_one(tid, (select(i, ...)), true)
  end
end

API['queue.throttle.get'] = function(now, qname)
  stock_unless(false)
  need(qname, 'queue.throttle.get(): Arg "queue" missing')
  return throttle_get_json('ql:q:' .. qname)
end

API['queue.throttle.set'] = function(now, qname, max)
  stock_unless(false)
  need(qname, 'queue.throttle.set(): Arg "queue" missing')
  throttle_set('queue.throttle.set', 'ql:q:' .. qname, max, 0)
end

-- Rate limits (rate.lua): at most count jobs start in any seconds.
API['rate.set'] = function(now, name, count, seconds)
  stock_unless(false)
  rate.set(name, count, seconds)
end

API['rate.get'] = function(now, name)
  stock_unless(false)
  return rate.get_json(now, name)
end

API['rate.delete'] = function(now, name)
  stock_unless(false)
  rate.delete(name)
end

local function dispatch(fn, now, ...)
  if fn == nil then
    error('Must provide a command', 0)
  end
  local command = API[fn]
  if not command then
    error('Unknown command ' .. fn, 0)
  end
  local t = tonumber(now)
  if not t then
    error('Arg "now" missing or not a number: nil', 0)
  end
  stock_unless(t == t and t ~= HUGE and t ~= -HUGE)
  history_limit = nil
  return command(t, ...)
end

-- A client's build served natively comes with its switches, a number,
-- before the script's own arguments (qless/profiles.go).
return function(fn, ...)
  if type(fn) == 'number' then
    stock, heartbeat_worker, retry_failed_event = true, fn % 2 == 1, fn % 4 >= 2
    return dispatch(...)
  end
  stock, heartbeat_worker, retry_failed_event = false, true, true
  return dispatch(fn, ...)
end
