-- Shared plumbing for the qless API: Redis access, configuration, events,
-- job history, the per-queue sorted sets and the job JSON object.
--
-- Every definition is local: the files are concatenated into one chunk and
-- must not create globals (Redis 7 forbids it).
local call = redis.call
local cjson = cjson
local decode, encode = cjson.decode, cjson.encode
local tonumber, tostring, ipairs, pairs, unpack, error, select = tonumber, tostring, ipairs, pairs, unpack, error, select
local floor, ceil, sqrt, max, min = math.floor, math.ceil, math.sqrt, math.max, math.min
local HUGE = math.huge
local format, lower = string.format, string.lower

-- Defaults reported by config.get; never modified.
local CONFIG_DEFAULTS = {
  ['application']        = 'qless',
  ['heartbeat']          = 60,
  ['grace-period']       = 10,
  ['stats-history']      = 30,
  ['histogram-history']  = 7,
  ['jobs-history-count'] = 50000,
  ['jobs-history']       = 604800,
}

local function config(key, default)
  return call('hget', 'ql:config', key) or CONFIG_DEFAULTS[key] or default
end

-- Lock duration for jobs of a queue: the queue's own heartbeat setting wins
-- over the global one. One HMGET instead of two HGETs.
local function heartbeat_of(qname)
  local v = call('hmget', 'ql:config', qname .. '-heartbeat', 'heartbeat')
  return tonumber(v[1] or v[2] or 60)
end

local function publish(channel, message)
  call('publish', 'ql:' .. channel, message)
end

local function is_tracked(jid)
  return call('zscore', 'ql:tracked', jid) ~= false
end

local function day_bin(t)
  return t - (t % 86400)
end

-- max-job-history is read at most once per API call (the dispatcher resets
-- it); no API function changes it while appending history.
local history_limit

-- Appends one history entry. qless trims before appending, keeping the
-- first entry and the newest (limit - 2) others. For integral limits the
-- same list results from appending first and, only when the list outgrew
-- the limit, dropping the entries after the first: one RPUSH in the usual
-- case. Other limits take qless's own LPOP/LTRIM/LPUSH path, errors included.
local function history_add(now, jid, what, item)
  local key = 'ql:j:' .. jid .. '-history'
  if history_limit == nil then
    history_limit = tonumber(config('max-job-history', 100))
  end
  local count = history_limit
  local when = floor(now)
  -- A NaN or infinite time cannot be encoded; qless trims before failing.
  local finite = when == when and when ~= HUGE and when ~= -HUGE
  if count > 0 and not (finite and (count == 2 or
      (count >= 3 and count < 1e15 and count == floor(count)))) then
    local obj = call('lpop', key)
    call('ltrim', key, -count + 2, -1)
    if obj ~= nil and obj ~= false then
      call('lpush', key, obj)
    end
    return call('rpush', key, encode({when, what, item}))
  end
  local n = call('rpush', key, encode({when, what, item}))
  if count >= 3 and n > count then
    local drop = n - count
    call('lset', key, drop, call('lindex', key, 0))
    call('ltrim', key, drop, -1)
    n = count
  end
  return n
end

local function history_list(jid)
  local items = call('lrange', 'ql:j:' .. jid .. '-history', 0, -1)
  for i = 1, #items do
    local value = decode(items[i])
    local dict = value[3] or {}
    dict['when'] = value[1]
    dict['what'] = value[2]
    items[i] = dict
  end
  return items
end

-- The job object that get, multiget, peek, pop and track return, or nil.
-- Its errors (a history entry whose details are not an object, say) are
-- qless's, so the functions where qless reads the whole job call it too.
-- The second result is the job's raw time field, which pop needs.
local function job_table(jid)
  local key = 'ql:j:' .. jid
  local job = call('hmget', key, 'jid', 'klass', 'state', 'queue',
    'worker', 'priority', 'expires', 'retries', 'remaining', 'data',
    'tags', 'failure', 'spawned_from_jid', 'time')
  if not job[1] then
    return nil
  end
  return {
    jid              = job[1],
    klass            = job[2],
    state            = job[3],
    queue            = job[4],
    worker           = job[5] or '',
    tracked          = call('zscore', 'ql:tracked', jid) ~= false,
    priority         = tonumber(job[6]),
    expires          = tonumber(job[7]) or 0,
    retries          = tonumber(job[8]),
    remaining        = floor(tonumber(job[9])),
    data             = job[10],
    tags             = decode(job[11]),
    history          = history_list(jid),
    failure          = decode(job[12] or '{}'),
    spawned_from_jid = job[13],
    dependents       = call('smembers', key .. '-dependents'),
    dependencies     = call('smembers', key .. '-dependencies'),
  }, job[14]
end

-- Jobs as a JSON array, unknown jids skipped; built and encoded once.
local function jobs_json(jids)
  local out, n = {}, 0
  for i = 1, #jids do
    local job = job_table(jids[i])
    if job then
      n = n + 1
      out[n] = job
    end
  end
  return encode(out)
end

local function job_exists(jid)
  return call('exists', 'ql:j:' .. jid) == 1
end

-- Work queue scores: higher priority first, then earlier put first.
local function work_add(qname, now, priority, jid)
  if priority ~= '+inf' then
    priority = priority - (now / 10000000000)
  end
  return call('zadd', 'ql:q:' .. qname .. '-work', priority, jid)
end

-- Removes jid from the work, locks and scheduled sets of a queue.
local function unqueue(qname, jid)
  local prefix = 'ql:q:' .. qname
  call('zrem', prefix .. '-work', jid)
  call('zrem', prefix .. '-locks', jid)
  call('zrem', prefix .. '-scheduled', jid)
end

local function remember_queue(now, qname)
  call('zadd', 'ql:queues', 'NX', now, qname)
end

local function tags_remove(jid, tags)
  for _, tag in ipairs(tags) do
    call('zrem', 'ql:t:' .. tag, jid)
    call('zincrby', 'ql:tags', -1, tag)
  end
end

local function tags_add(now, jid, tags)
  for _, tag in ipairs(tags) do
    call('zadd', 'ql:t:' .. tag, now, jid)
    call('zincrby', 'ql:tags', 1, tag)
  end
end

-- Deletes a job's data, as completed-job expiry does.
local function job_delete(jid)
  local key = 'ql:j:' .. jid
  tags_remove(jid, decode(call('hget', key, 'tags') or '{}'))
  call('del', key, key .. '-history')
end

local function need_queue(name)
  if name == nil then error('Queue(): no queue name provided', 0) end
end

local function need_jid(jid)
  if jid == nil then error('Job(): no jid provided', 0) end
end

local function need(value, message)
  if value == nil then error(message, 0) end
end
