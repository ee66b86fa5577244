-- Jobs: completing, failing, retrying, dependencies, heartbeats, priority,
-- timeouts, cancellation, tags, tracking and log entries.

-- Deletes completed jobs that are too old or beyond the newest `count`.
-- count and time are the raw jobs-history-count and jobs-history settings.
local function expire_completed(now, count, time)
  count = tonumber(count or 50000)
  time = tonumber(time or 604800)
  local jids = call('zrangebyscore', 'ql:completed', 0, now - time)
  if #jids > 0 then
    for _, jid in ipairs(jids) do job_delete(jid) end
    call('zremrangebyscore', 'ql:completed', 0, now - time)
  end
  jids = call('zrange', 'ql:completed', 0, (-1 - count))
  if #jids > 0 then
    for _, jid in ipairs(jids) do job_delete(jid) end
    call('zremrangebyrank', 'ql:completed', 0, (-1 - count))
  end
end

-- A completed job no longer holds back the jobs that depend on it.
local function release_dependents(now, jid)
  local dkey = 'ql:j:' .. jid .. '-dependents'
  local dependents = call('smembers', dkey)
  if #dependents == 0 then
    -- No set to delete (sets are never empty).
    return
  end
  for _, j in ipairs(dependents) do
    local key = 'ql:j:' .. j
    call('srem', key .. '-dependencies', jid)
    if call('scard', key .. '-dependencies') == 0 then
      local v = call('hmget', key, 'queue', 'priority', 'scheduled')
      local q, p, scheduled = v[1], v[2], v[3]
      if q then
        call('zrem', 'ql:q:' .. q .. '-depends', j)
        if scheduled then
          call('zadd', 'ql:q:' .. q .. '-scheduled', scheduled, j)
          call('hset', key, 'state', 'scheduled')
          call('hdel', key, 'scheduled')
        else
          work_add(q, now, p, j)
          call('hset', key, 'state', 'waiting')
        end
      end
    end
  end
  call('del', dkey)
end

local function job_complete(now, jid, worker, qname, raw_data, ...)
  need(worker, 'Complete(): Arg "worker" missing')
  need(qname, 'Complete(): Arg "queue" missing')
  if not decode(raw_data) then
    error('Complete(): Arg "data" missing or not JSON: ' .. tostring(raw_data), 0)
  end
  local o_next, o_delay, o_depends
  for i = 1, select('#', ...), 2 do
    local k, v = select(i, ...)
    if k == 'next' then o_next = v
    elseif k == 'delay' then o_delay = v
    elseif k == 'depends' then o_depends = v
    end
  end
  local nextq = o_next
  local delay = tonumber(o_delay or 0)
  if not delay then error('assertion failed!', 0) end
  list_max_json('Complete', 'depends', o_depends)
  local depends = EMPTY
  if o_depends then
    depends = decode(o_depends)
    if not depends then
      error('Complete(): Arg "depends" not JSON: ' .. tostring(o_depends), 0)
    end
  end
  if o_delay and nextq == nil then
    error('Complete(): "delay" cannot be used without a "next".', 0)
  end
  if o_depends and nextq == nil then
    error('Complete(): "depends" cannot be used without a "next".', 0)
  end

  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'worker', 'state', 'priority', 'retries', 'queue', 'time', 'throttles')
  local lastworker, state, priority, retries, current_queue = j[1], j[2], j[3], j[4], j[5]
  if lastworker == false then
    error('Complete(): Job ' .. jid .. ' does not exist', 0)
  elseif state ~= 'running' then
    error('Complete(): Job ' .. jid .. ' is not currently running: ' .. state, 0)
  elseif lastworker ~= worker then
    error('Complete(): Job ' .. jid ..
      ' has been handed out to another worker: ' .. tostring(lastworker), 0)
  elseif qname ~= current_queue then
    error('Complete(): Job ' .. jid .. ' running in another queue: ' ..
      tostring(current_queue), 0)
  end

  -- Every setting complete reads, in one HMGET.
  local cfg = call('hmget', 'ql:config', 'max-job-history', 'jobs-history-count', 'jobs-history')
  history_limit = tonumber(cfg[1] or 100)
  history_add(now, jid, 'done', nil, ',"done"]')
  unqueue(qname, jid)
  throttles_release(jid, qname, j[7])
  local time = tonumber(j[6] or now)
  stat(stat_key(now, qname, 'run'), now - time)
  local stamp = format('%.20f', now)
  call('zrem', wkey(worker), jid)
  count_jobs(qname, 'completed', 1)
  if is_tracked(jid) then
    publish('ql:completed', jid)
  end

  if nextq then
    local qnext = qstr(nextq)
    publish('ql:log', '{"jid":' .. encode(jid) .. ',"to":' .. qnext ..
      ',"event":"advanced","queue":' .. qstr(qname) .. '}')
    history_add(now, jid, 'put', nil, ',"put",{"q":' .. qnext .. '}]')
    remember_queue(now, nextq)
    count_jobs(nextq, 'put', 1)
    call('hset', key, 'data', raw_data, 'time', stamp, 'state', 'waiting',
      'worker', '', 'failure', '{}', 'queue', nextq, 'expires', 0,
      'remaining', tonumber(retries))
    -- depends that decoded to something else than a list (a string has a
    -- length) fail here, after the job moved.
    local dtype = type(depends)
    if delay > 0 and dtype ~= 'table' and dtype ~= 'string' then
      late_error('complete-depends-length',
        "attempt to get length of local 'depends' (a " .. dtype .. " value)")
    end
    if (delay > 0) and (#depends == 0) then
      call('zadd', qkeys(nextq)[3], now + delay, jid)
      return 'scheduled'
    end
    if dtype ~= 'table' then
      late_error('complete-depends-ipairs',
        "bad argument #1 to 'ipairs' (table expected, got " .. dtype .. ")")
    end
    local count = 0
    for _, dep in ipairs(depends) do
      local s = call('hget', 'ql:j:' .. dep, 'state')
      if s and s ~= 'complete' then
        count = count + 1
        call('sadd', 'ql:j:' .. dep .. '-dependents', jid)
        call('sadd', key .. '-dependencies', dep)
      end
    end
    if count > 0 then
      call('zadd', qkeys(nextq)[5], now, jid)
      if delay > 0 then
        call('hset', key, 'state', 'depends', 'scheduled', now + delay)
      else
        call('hset', key, 'state', 'depends')
      end
      return 'depends'
    end
    work_add(nextq, now, priority, jid)
    return 'waiting'
  end

  publish('ql:log', '{"jid":' .. encode(jid) .. ',"event":"completed","queue":' .. qstr(qname) .. '}')
  call('hset', key, 'data', raw_data, 'time', stamp, 'state', 'complete',
    'worker', '', 'failure', '{}', 'queue', '', 'expires', 0,
    'remaining', tonumber(retries))
  call('zadd', 'ql:completed', now, jid)
  expire_completed(now, cfg[2], cfg[3])
  release_dependents(now, jid)
  return 'complete'
end

-- Records a failure in its group and in the queue's daily counters.
local function add_failure(now, qname, jid, group)
  call('sadd', 'ql:failures', group)
  call('lpush', 'ql:f:' .. group, jid)
  local skey = 'ql:s:stats:' .. day_bin(now) .. ':' .. qname
  call('hincrby', skey, 'failures', 1)
  call('hincrby', skey, 'failed', 1)
end

local function job_fail(now, jid, worker, group, message, data)
  need(worker, 'Fail(): Arg "worker" missing')
  need(group, 'Fail(): Arg "group" missing')
  need(message, 'Fail(): Arg "message" missing')
  if data then
    data = decode(data)
  end
  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'queue', 'state', 'worker', 'throttles')
  local qname, state, oldworker = j[1], j[2], j[3]
  if not state then
    error('Fail(): Job ' .. jid .. 'does not exist', 0)
  elseif state ~= 'running' then
    error('Fail(): Job ' .. jid .. 'not currently running: ' .. state, 0)
  elseif worker ~= oldworker then
    error('Fail(): Job ' .. jid .. ' running with another worker: ' .. oldworker, 0)
  end
  local qworker, qgroup, qmessage = qstr(worker), qstr(group), encode(message)
  publish('ql:log', '{"message":' .. qmessage .. ',"jid":' .. encode(jid) ..
    ',"group":' .. qgroup .. ',"event":"failed","worker":' .. qworker .. '}')
  if is_tracked(jid) then
    publish('ql:failed', jid)
  end
  call('zrem', wkey(worker), jid)
  -- {worker = , group = } as Redis's Lua orders that table.
  history_add(now, jid, 'failed', nil,
    ',"failed",{"group":' .. qgroup .. ',"worker":' .. qworker .. '}]')
  local skey = 'ql:s:stats:' .. day_bin(now) .. ':' .. qname
  call('hincrby', skey, 'failures', 1)
  call('hincrby', skey, 'failed', 1)
  unqueue(qname, jid)
  throttles_release(jid, qname, j[4])
  count_jobs(qname, 'failed', 1)
  -- history_add has refused a time cjson cannot encode.
  local failure = '{"group":' .. qgroup .. ',"message":' .. qmessage ..
    ',"when":' .. floor(now) .. ',"worker":' .. qworker .. '}'
  if data then
    call('hset', key, 'data', encode(data), 'state', 'failed', 'worker', '',
      'expires', '', 'failure', failure)
  else
    call('hset', key, 'state', 'failed', 'worker', '', 'expires', '',
      'failure', failure)
  end
  call('sadd', 'ql:failures', group)
  call('lpush', 'ql:f:' .. group, jid)
  return jid
end

local function job_retry(now, jid, qname, worker, delay, group, message)
  need(qname, 'Retry(): Arg "queue" missing')
  need(worker, 'Retry(): Arg "worker" missing')
  local d = tonumber(delay or 0)
  if not d then
    error('Retry(): Arg "delay" not a number: ' .. tostring(delay), 0)
  end
  delay = d
  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'queue', 'state', 'worker', 'priority', 'throttles')
  local oldqueue, state, oldworker, priority = j[1], j[2], j[3], j[4]
  if oldworker == false then
    error('Retry(): Job ' .. jid .. ' does not exist', 0)
  elseif state ~= 'running' then
    error('Retry(): Job ' .. jid .. ' is not currently running: ' .. state, 0)
  elseif oldworker ~= worker then
    error('Retry(): Job ' .. jid .. ' has been given to another worker: ' .. oldworker, 0)
  end
  local remaining = tonumber(call('hincrby', key, 'remaining', -1))
  call('hdel', key, 'grace')
  call('zrem', qkeys(oldqueue)[2], jid)
  call('zrem', wkey(worker), jid)
  throttles_release(jid, oldqueue, j[5])

  if remaining < 0 then
    group = group or 'failed-retries-' .. qname
    history_add(now, jid, 'failed', {group = group})
    local failure
    if message ~= nil then
      failure = {group = group, message = message, when = floor(now), worker = worker}
    else
      failure = {group = group,
        message = 'Job exhausted retries in queue "' .. oldqueue .. '"',
        when = now, worker = ''}
    end
    if message ~= nil then
      call('hset', key, 'state', 'failed', 'worker', '', 'expires', '',
        'failure', shaped_json(FAILURE_SHAPE, failure))
    else
      -- qless rereads the whole job for its (now empty) worker here.
      call('hset', key, 'state', 'failed', 'worker', '', 'expires', '')
      job_table(jid)
      call('hset', key, 'failure', shaped_json(FAILURE_SHAPE, failure))
    end
    if retry_failed_event and is_tracked(jid) then
      publish('ql:failed', jid)
    end
    add_failure(now, qname, jid, group)
    count_jobs(qname, 'failed', 1)
  else
    local newstate
    if delay > 0 then
      call('zadd', qkeys(qname)[3], now + delay, jid)
      newstate = 'scheduled'
    else
      work_add(qname, now, priority, jid)
      newstate = 'waiting'
    end
    if group ~= nil and message ~= nil then
      local when = floor(now)
      if when ~= when or when == HUGE or when == -HUGE then
        encode(when) -- cjson's error for a time it cannot encode
      end
      call('hset', key, 'state', newstate, 'failure', '{"group":' .. qstr(group) ..
        ',"message":' .. encode(message) .. ',"when":' .. when ..
        ',"worker":' .. qstr(worker) .. '}')
    else
      call('hset', key, 'state', newstate)
    end
    count_jobs(qname, 'retried', 1)
  end
  return floor(remaining)
end

-- The job leaves the depends state for its queue's work queue.
local function job_undepend(now, jid)
  local key = 'ql:j:' .. jid
  local v = call('hmget', key, 'queue', 'priority')
  if v[1] then
    call('zrem', 'ql:q:' .. v[1] .. '-depends', jid)
    work_add(v[1], now, v[2], jid)
    call('hset', key, 'state', 'waiting')
  end
end

local function job_depends(now, jid, command, ...)
  need(command, 'Depends(): Arg "command" missing')
  list_max('Depends', 'jids', select('#', ...))
  local key = 'ql:j:' .. jid
  local state = call('hget', key, 'state')
  if state ~= 'depends' then
    error('Depends(): Job ' .. jid .. ' not in the depends state: ' .. tostring(state), 0)
  end
  if command == 'on' then
    for i = 1, select('#', ...) do
      local j = (select(i, ...))
      local s = call('hget', 'ql:j:' .. j, 'state')
      if s and s ~= 'complete' then
        call('sadd', 'ql:j:' .. j .. '-dependents', jid)
        call('sadd', key .. '-dependencies', j)
      end
    end
    return true
  elseif command == 'off' then
    if (...) == 'all' then
      for _, j in ipairs(call('smembers', key .. '-dependencies')) do
        call('srem', 'ql:j:' .. j .. '-dependents', jid)
      end
      call('del', key .. '-dependencies')
      job_undepend(now, jid)
    else
      for i = 1, select('#', ...) do
        local j = (select(i, ...))
        call('srem', 'ql:j:' .. j .. '-dependents', jid)
        call('srem', key .. '-dependencies', j)
        if call('scard', key .. '-dependencies') == 0 then
          job_undepend(now, jid)
        end
      end
    end
    return true
  end
  error('Depends(): Argument "command" must be "on" or "off"', 0)
end

local function job_heartbeat(now, jid, worker, data)
  need(worker, 'Heatbeat(): Arg "worker" missing')
  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'queue', 'worker', 'state')
  local expires = now + heartbeat_of(j[1] or '')
  if data then
    data = decode(data)
  end
  local job_worker, state = j[2], j[3]
  if job_worker == false then
    error('Heartbeat(): Job ' .. jid .. ' does not exist', 0)
  elseif state ~= 'running' then
    error('Heartbeat(): Job ' .. jid .. ' not currently running: ' .. state, 0)
  elseif job_worker ~= worker or #job_worker == 0 then
    error('Heartbeat(): Job ' .. jid .. ' given out to another worker: ' .. job_worker, 0)
  end
  -- The worker field already holds worker.
  if data then
    call('hset', key, 'expires', expires, 'data', encode(data))
  else
    call('hset', key, 'expires', expires)
  end
  call('zadd', wkey(worker), expires, jid)
  if heartbeat_worker then
    call('zadd', 'ql:workers', now, worker)
  end
  call('zadd', qkeys(j[1])[2], expires, jid)
  return expires
end

local function job_priority(jid, priority)
  local p = tonumber(priority)
  if not p then
    error('Priority(): Arg "priority" missing or not a number: ' .. tostring(priority), 0)
  end
  local key = 'ql:j:' .. jid
  local qname = call('hget', key, 'queue')
  if qname == nil or qname == false then
    error('Priority(): Job ' .. jid .. ' does not exist', 0)
  end
  if qname ~= '' and call('zscore', 'ql:q:' .. qname .. '-work', jid) then
    work_add(qname, 0, p, jid)
  elseif qname ~= '' then
    throttled_priority(jid, qname, p)
  end
  call('hset', key, 'priority', p)
  return p
end

local function job_timeout(now, jid)
  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'queue', 'state', 'worker', 'throttles')
  local qname, state, worker = j[1], j[2], j[3]
  if qname == nil or qname == false then
    error('Timeout(): Job ' .. jid .. ' does not exist', 0)
  elseif state ~= 'running' then
    error('Timeout(): Job ' .. jid .. ' not running', 0)
  end
  history_add(now, jid, 'timed-out')
  call('zrem', 'ql:q:' .. qname .. '-locks', jid)
  throttles_release(jid, qname, j[4])
  work_add(qname, now, '+inf', jid)
  call('hset', key, 'state', 'stalled', 'expires', 0)
  count_jobs(qname, 'retried', 1)
  local encoded = lock_lost_json(jid, worker)
  publish('ql:w:' .. worker, encoded)
  publish('ql:log', encoded)
end

local function cancel_one(jid)
  local key = 'ql:j:' .. jid
  local j = call('hmget', key, 'state', 'queue', 'failure', 'worker', 'tags', 'throttles')
  local state, qname, failure, worker = j[1], j[2], j[3], j[4]
  if state == 'complete' then
    return
  end
  local encoded = shaped_json(CANCELED_SHAPE,
    {jid = jid, worker = worker, event = 'canceled', queue = qname})
  publish('ql:log', encoded)
  if worker and (worker ~= '') then
    call('zrem', 'ql:w:' .. worker .. ':jobs', jid)
    publish('ql:w:' .. worker, encoded)
  end
  if qname then
    local prefix = 'ql:q:' .. qname
    call('zrem', prefix .. '-work', jid)
    call('zrem', prefix .. '-locks', jid)
    call('zrem', prefix .. '-scheduled', jid)
    call('zrem', prefix .. '-depends', jid)
    throttles_release(jid, qname, j[6])
  end
  for _, dep in ipairs(call('smembers', key .. '-dependencies')) do
    call('srem', 'ql:j:' .. dep .. '-dependents', jid)
  end
  call('del', key .. '-dependencies')
  if state == 'failed' then
    local bin = unfail_cleanup(jid, failure)
    local skey = 'ql:s:stats:' .. bin .. ':' .. qname
    local failed = call('hget', skey, 'failed')
    if not tonumber(failed) then
      late_error('cancel-failed', "attempt to perform arithmetic on local 'failed' (a " .. type(failed) .. " value)")
    end
    call('hset', skey, 'failed', failed - 1)
  end
  tags_remove(jid, decode(j[5] or '{}'))
  if is_tracked(jid) then
    publish('ql:canceled', jid)
  end
  call('del', key, key .. '-history')
end

-- Cancels a set of jobs, refusing when a job outside the set depends on one.
local function job_cancel(...)
  local jids = {...}
  local dependents = {}
  for _, jid in ipairs(jids) do
    dependents[jid] = call('smembers', 'ql:j:' .. jid .. '-dependents')
  end
  for _, jid in ipairs(jids) do
    for _, dep in ipairs(dependents[jid]) do
      if dependents[dep] == nil then
        error('Cancel(): ' .. jid .. ' is a dependency of ' .. dep ..
          ' but is not mentioned to be canceled', 0)
      end
    end
  end
  for _, jid in ipairs(jids) do
    cancel_one(jid)
  end
  return jids
end

local function job_log(now, jid, message, data)
  need(jid, "Log(): Argument 'jid' missing")
  need(message, "Log(): Argument 'message' missing")
  if data then
    local d = decode(data)
    if not d then
      error("Log(): Argument 'data' not cjson: " .. tostring(data), 0)
    end
    data = d
  end
  if not job_exists(jid) then
    error('Log(): Job ' .. jid .. ' does not exist', 0)
  end
  history_add(now, jid, message, data)
end

local function track(now, command, jid)
  if command ~= nil then
    need(jid, 'Track(): Arg "jid" missing')
    if not job_exists(jid) then
      error('Track(): Job does not exist', 0)
    end
    local action = lower(command)
    if action == 'track' then
      publish('ql:track', jid)
      return call('zadd', 'ql:tracked', now, jid)
    elseif action == 'untrack' then
      publish('ql:untrack', jid)
      return call('zrem', 'ql:tracked', jid)
    end
    error('Track(): Unknown action "' .. command .. '"', 0)
  end
  -- On qlessd the jobs' text is built as each is read; the table path
  -- (the printed script on Redis) encodes job tables.
  local jobs, expired, texts, nj, ne = {}, {}, native and {}, 0, 0
  for _, j in ipairs(call('zrange', 'ql:tracked', 0, -1)) do
    local job = job_read(j)
    if job then
      nj = nj + 1
      if texts then
        texts[nj] = job_json(job)
      else
        jobs[nj] = job_object_throttled(job)
      end
    else
      ne = ne + 1
      expired[ne] = j
    end
  end
  return {jobs = jobs, expired = expired, texts = texts}
end

-- Returns the job's tag list minus the given tags.
local function without_tags(tags, removed, first)
  local drop = {}
  for i = first, #removed do drop[removed[i]] = true end
  local results, n = {}, 0
  for _, tag in ipairs(tags) do
    if not drop[tag] then
      n = n + 1
      results[n] = tag
    end
  end
  return results
end

-- Tag commands reply JSON; the add/remove list is encoded once for both
-- the job hash and the reply.
local function tag(now, command, ...)
  need(command, 'Tag(): Arg "command" must be "add", "remove", "get" or "top"')
  if command == 'add' or command == 'remove' then
    local jid = (...)
    need(jid, 'Tag(): Arg "jid" missing')
    list_max('Tag', 'tags', select('#', ...) - 1)
    local key = 'ql:j:' .. jid
    local tags = call('hget', key, 'tags')
    if not tags then
      error('Tag(): Job ' .. jid .. ' does not exist', 0)
    end
    tags = decode(tags)
    local args = {...}
    if command == 'add' then
      local have = {}
      for _, t in ipairs(tags) do have[t] = true end
      local n = #tags
      for i = 2, #args do
        local t = args[i]
        if not have[t] then
          have[t] = true
          n = n + 1
          tags[n] = t
        end
        call('zadd', 'ql:t:' .. t, now, jid)
        call('zincrby', 'ql:tags', 1, t)
      end
    else
      for i = 2, #args do
        call('zrem', 'ql:t:' .. args[i], jid)
        call('zincrby', 'ql:tags', -1, args[i])
      end
      tags = without_tags(tags, args, 2)
    end
    local encoded = encode(tags)
    call('hset', key, 'tags', encoded)
    return encoded
  elseif command == 'get' then
    local t, offset, count = ...
    need(t, 'Tag(): Arg "tag" missing')
    local o = tonumber(offset or 0)
    if not o then error('Tag(): Arg "offset" not a number: ' .. tostring(offset), 0) end
    local c = tonumber(count or 25)
    if not c then error('Tag(): Arg "count" not a number: ' .. tostring(count), 0) end
    return shaped_json(TOTAL_JOBS_SHAPE, {
      total = call('zcard', 'ql:t:' .. t),
      jobs  = call('zrange', 'ql:t:' .. t, o, o + c - 1)
    })
  elseif command == 'top' then
    local offset, count = ...
    local o = tonumber(offset or 0)
    if not o then error('Tag(): Arg "offset" not a number: ' .. tostring(offset), 0) end
    local c = tonumber(count or 25)
    if not c then error('Tag(): Arg "count" not a number: ' .. tostring(count), 0) end
    return encode(call('zrevrangebyscore', 'ql:tags', '+inf', 2, 'limit', o, c))
  end
  error('Tag(): First argument must be "add", "remove" or "get"', 0)
end
