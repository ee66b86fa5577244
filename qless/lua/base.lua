-- Shared plumbing for the qless API: Redis access, configuration, events,
-- job history, the per-queue sorted sets and the job JSON object.
--
-- Every definition is local: the files are concatenated into one chunk and
-- must not create globals (Redis 7 forbids it).

-- qlessd passes the chunk a table of Go helpers (qless/natives.go); run as
-- the printed script on Redis it gets none, and plain Lua does their work.
local native = ...
local call = redis.call
local cjson = cjson
local decode, encode = cjson.decode, cjson.encode
local tonumber, tostring, ipairs, pairs, unpack, error, select, xpcall, pcall, type =
  tonumber, tostring, ipairs, pairs, unpack, error, select, xpcall, pcall, type
local floor, ceil, sqrt, max, min = math.floor, math.ceil, math.sqrt, math.max, math.min
local HUGE = math.huge
local format, lower, sub = string.format, string.lower, string.sub
local concat = table.concat
-- Counts jobs by queue and event (put, popped, completed, failed, retried)
-- for INFO and the metrics; run as the printed script on Redis, nothing.
local count_jobs = function() end
if native then
  count_jobs = native.count
end

-- What the qless.lua build being served does where builds differ (see
-- qless/profiles.go; QLESS and the printed script do all of it): heartbeat
-- records the worker in ql:workers; a retry that fails a tracked job
-- publishes ql:failed. stock: a client's own build is being served, and
-- answers any error raised here before the first write or publish.
local heartbeat_worker, retry_failed_event, stock = true, true, false

-- Raises an error qless meets part way through a call, in Lua 5.1's words.
-- Serving a client's build, it goes up as the site it comes from, so the
-- reply can name the build's own line for it (qless/stocksites.go).
local function late_error(site, message)
  if stock then
    error({qlessd_site = site, message = message}, 0)
  end
  error(message, 0)
end

-- Defaults reported by config.get, a new table each time as qless makes
-- it (its key order in cjson's text follows from that: see shaped_json).
local function config_defaults()
  return {
    ['application']        = 'qless',
    ['heartbeat']          = 60,
    ['grace-period']       = 10,
    ['stats-history']      = 30,
    ['histogram-history']  = 7,
    ['jobs-history-count'] = 50000,
    ['jobs-history']       = 604800
  }
end
local CONFIG_DEFAULTS = config_defaults()
local CONFIG_SHAPE = {7, 'application', 'heartbeat', 'grace-period',
  'stats-history', 'histogram-history', 'jobs-history-count', 'jobs-history'}

local function config(key, default)
  return call('hget', 'ql:config', key) or CONFIG_DEFAULTS[key] or default
end

-- Returns make(name), remembered by this Lua state for names that recur
-- from call to call (queue, worker, class and group names), so hot paths
-- do not build the same key names and JSON strings again. The memo starts
-- over when it grows large. make raises for names it cannot take.
local function memoize(make)
  local memo, n = {}, 0
  return function(name)
    local v = memo[name]
    if v == nil then
      v = make(name)
      if name ~= nil then
        if n >= 1000 then
          memo, n = {}, 0
        end
        n = n + 1
        memo[name] = v
      end
    end
    return v
  end
end

-- cjson's text of a name (a string, or false for a missing field).
local qstr = memoize(encode)

-- A queue's key names: 1 work, 2 locks, 3 scheduled, 4 recur, 5 depends,
-- and its 6 heartbeat and 7 max-concurrency settings' names.
local qkeys = memoize(function(qname)
  local prefix = 'ql:q:' .. qname
  return {prefix .. '-work', prefix .. '-locks', prefix .. '-scheduled',
    prefix .. '-recur', prefix .. '-depends', qname .. '-heartbeat',
    qname .. '-max-concurrency'}
end)

-- A worker's set of jobs.
local wkey = memoize(function(worker)
  return 'ql:w:' .. worker .. ':jobs'
end)

-- Lock duration for jobs of a queue: the queue's own heartbeat setting wins
-- over the global one. One HMGET instead of two HGETs.
local function heartbeat_of(qname)
  local v = call('hmget', 'ql:config', qkeys(qname)[6], 'heartbeat')
  return tonumber(v[1] or v[2] or 60)
end

-- channel is the full name, ql: included.
local function publish(channel, message)
  call('publish', channel, message)
end

-- The lock_lost event, as cjson encodes {jid=, event=, worker=}.
local function lock_lost_json(jid, worker)
  return '{"jid":' .. encode(jid) .. ',"event":"lock_lost","worker":' .. qstr(worker) .. '}'
end

local function is_tracked(jid)
  return call('zscore', 'ql:tracked', jid) ~= false
end

local function day_bin(t)
  return t - (t % 86400)
end

-- max-job-history is read at most once per API call (the dispatcher resets
-- it, callers that read ql:config anyway may set it); no API function
-- changes it while appending history.
local history_limit

-- The text of a history entry [when, what, item] as cjson writes it. tail,
-- when given, is the entry's text after when (',"what",{...}]'), built by a
-- caller that knows its item; otherwise the entry is encoded. A NaN or
-- infinite when raises cjson's error either way.
local last_when, last_tail, last_entry
local function history_entry(when, what, item, tail)
  if tail then
    -- pop appends the same entry to each job's history.
    if tail == last_tail and when == last_when and when ~= 0 then
      return last_entry
    end
    if when ~= when or when == HUGE or when == -HUGE then
      encode(when)
    end
    last_when, last_tail, last_entry = when, tail, '[' .. when .. tail
    return last_entry
  end
  return encode({when, what, item})
end

-- Appends one history entry. qless trims before appending, keeping the
-- first entry and the newest (limit - 2) others. For integral limits the
-- same list results from appending first and, only when the list outgrew
-- the limit, dropping the entries after the first: one RPUSH in the usual
-- case. Other limits take qless's own LPOP/LTRIM/LPUSH path, errors included.
-- Returns true when the entry was appended and nothing else changed. key,
-- when given, is the history list's name.
local function history_add(now, jid, what, item, tail, key)
  key = key or 'ql:j:' .. jid .. '-history'
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
    call('rpush', key, history_entry(when, what, item, tail))
    return false
  end
  local n = call('rpush', key, history_entry(when, what, item, tail))
  if count >= 3 and n > count then
    local drop = n - count
    call('lset', key, drop, call('lindex', key, 0))
    call('ltrim', key, drop, -1)
    return false
  end
  return true
end

-- A job's history as qless makes it: each entry's details with when and
-- what added. The entries' text comes second.
local function history_list(jid, key)
  local raw = call('lrange', key or 'ql:j:' .. jid .. '-history', 0, -1)
  local items = {}
  for i = 1, #raw do
    local value = decode(raw[i])
    local dict = value[3] or {}
    if type(dict) ~= 'table' then
      late_error('history-dict', "attempt to index local 'dict' (a " .. type(dict) .. " value)")
    end
    dict['when'] = value[1]
    dict['what'] = value[2]
    items[i] = dict
  end
  return items, raw
end

-- Stands for a job's tags or failure stored as '{}', which need no decoding.
local EMPTY = {}

-- Reads a job as qless's job object needs it, or returns nil: the HMGET
-- reply with its slots converted in place (5 worker, 6 priority, 7 expires,
-- 8 retries, 9 remaining, 11 tags and 12 failure decoded or EMPTY, 14 the
-- raw time) and 15 tracked, 16 history, 17 dependents, 18 dependencies,
-- 20 the job's key, 21 its history's and 22 the history entries' text,
-- 23 the throttles it was put with (throttle.lua; nil for none), 24 the
-- rates it was put with (rate.lua; nil for none).
-- The reads and their errors (a history entry whose details are not an
-- object, say) come in the order of qless's job object constructor.
local function job_read(jid)
  local key = 'ql:j:' .. jid
  local job = call('hmget', key, 'jid', 'klass', 'state', 'queue',
    'worker', 'priority', 'expires', 'retries', 'remaining', 'data',
    'tags', 'failure', 'spawned_from_jid', 'time', 'throttles', 'rates')
  if not job[1] then
    return nil
  end
  if not stock then
    job[23], job[24] = job[15] or nil, job[16] or nil
  end
  job[5] = job[5] or ''
  job[15] = call('zscore', 'ql:tracked', jid) ~= false
  job[6] = tonumber(job[6])
  job[7] = tonumber(job[7]) or 0
  job[8] = tonumber(job[8])
  job[9] = floor(tonumber(job[9]))
  local tags = job[11]
  if tags == '{}' then
    job[11] = EMPTY
  else
    job[11] = decode(tags)
  end
  local hkey = key .. '-history'
  job[16], job[22] = history_list(jid, hkey)
  local failure = job[12]
  if failure == false or failure == '{}' then
    job[12] = EMPTY
  else
    job[12] = decode(failure)
  end
  local dkey, depkey = key .. '-dependents', key .. '-dependencies'
  if call('exists', dkey, depkey) == 0 then
    job[17], job[18] = EMPTY, EMPTY
  else
    job[17] = call('smembers', dkey)
    job[18] = call('smembers', depkey)
  end
  job[20], job[21] = key, hkey
  return job
end

-- The job object of job_read's parts, the table qless encodes.
local function job_object(j)
  local tags, failure, dependents, dependencies = j[11], j[12], j[17], j[18]
  if tags == EMPTY then tags = {} end
  if failure == EMPTY then failure = {} end
  if dependents == EMPTY then dependents = {} end
  if dependencies == EMPTY then dependencies = {} end
  return {
    jid              = j[1],
    klass            = j[2],
    state            = j[3],
    queue            = j[4],
    worker           = j[5],
    tracked          = j[15],
    priority         = j[6],
    expires          = j[7],
    retries          = j[8],
    remaining        = j[9],
    data             = j[10],
    tags             = tags,
    history          = j[16],
    failure          = failure,
    spawned_from_jid = j[13],
    dependents       = dependents,
    dependencies     = dependencies,
  }
end

-- The job object with the throttles and then the rates it was put with
-- set after, as the job carries them (throttle.lua, rate.lua); each is
-- left out when it has none.
local function job_object_throttled(j)
  local t = job_object(j)
  if j[23] then
    t.throttles = decode(j[23])
  end
  if j[24] then
    t.rates = decode(j[24])
  end
  return t
end

local function job_table(jid)
  local j = job_read(jid)
  if j then
    return job_object(j)
  end
  return nil
end

-- cjson's text for a value that sits one level inside the job object:
-- encoded inside an array, so depth limits count as they do there.
local function nested_json(v)
  if v == EMPTY then
    return '{}'
  end
  local s = encode({v})
  return sub(s, 2, #s - 1)
end

-- The history array's text; extra is the text of one more entry's object.
local function history_json(history, extra)
  if not extra then
    return nested_json(history)
  end
  if #history == 0 then
    return '[' .. extra .. ']'
  end
  local s = encode({history})
  return sub(s, 2, #s - 2) .. ',' .. extra .. ']'
end

local function list_json(list)
  if #list == 0 then
    return '{}'
  end
  return encode(list)
end

-- The order in which Redis's Lua (5.1) visits the keys of a job object, and
-- so the order cjson writes them: qless builds the table with one
-- constructor, and Lua 5.1 places keys by their hash (see qless/shapes.go).
-- This holds when every key has a value; a nil one (a job without priority
-- or retries) changes where the others land, which native.order works out.
local JOB_SHAPE = {17, 'jid', 'klass', 'state', 'queue', 'worker', 'tracked',
  'priority', 'expires', 'retries', 'remaining', 'data', 'tags', 'history',
  'failure', 'spawned_from_jid', 'dependents', 'dependencies'}
-- A job put with throttles: the same table with throttles set after.
local JOB_THROTTLES_SHAPE = {17, 'jid', 'klass', 'state', 'queue', 'worker', 'tracked',
  'priority', 'expires', 'retries', 'remaining', 'data', 'tags', 'history',
  'failure', 'spawned_from_jid', 'dependents', 'dependencies', 'throttles'}
-- rate.lua's table, here for what job_json needs of it (a chunk may
-- have at most 200 locals, so rate.lua adds to this one): the shapes of a
-- job put with rates, rates set after, without throttles and with them.
local rate = {JOB_SHAPES = {{17, 'jid', 'klass', 'state', 'queue', 'worker', 'tracked',
  'priority', 'expires', 'retries', 'remaining', 'data', 'tags', 'history',
  'failure', 'spawned_from_jid', 'dependents', 'dependencies', 'rates'}, {17, 'jid', 'klass', 'state', 'queue', 'worker', 'tracked',
  'priority', 'expires', 'retries', 'remaining', 'data', 'tags', 'history',
  'failure', 'spawned_from_jid', 'dependents', 'dependencies', 'throttles', 'rates'}}}
-- The other objects qless replies with, each as qless builds it.
local TOTAL_JOBS_SHAPE = {2, 'total', 'jobs'}
local TRACKED_SHAPE = {2, 'jobs', 'expired'}
local WORKER_JOBS_SHAPE = {2, 'jobs', 'stalled'}
local WORKER_SHAPE = {3, 'name', 'jobs', 'stalled'}
local COUNTS_SHAPE = {8, 'name', 'waiting', 'stalled', 'running', 'scheduled',
  'depends', 'recurring', 'paused'}
local STATS_SHAPE = {5, 'retries', 'failed', 'failures', 'wait', 'run'}
local STAT_SHAPE = {0, 'count', 'mean', 'histogram', 'std'}
local RECUR_SHAPE = {11, 'jid', 'klass', 'state', 'queue', 'priority',
  'interval', 'retries', 'count', 'data', 'tags', 'backlog'}
-- A recurring job with throttles: the same table with throttles set after.
local RECUR_THROTTLES_SHAPE = {11, 'jid', 'klass', 'state', 'queue', 'priority',
  'interval', 'retries', 'count', 'data', 'tags', 'backlog', 'throttles'}
-- A recurring job on a cron schedule (qlessd only): throttles if any,
-- then its schedule and next run.
local RECUR_CRON_SHAPE = {11, 'jid', 'klass', 'state', 'queue', 'priority',
  'interval', 'retries', 'count', 'data', 'tags', 'backlog', 'throttles',
  'cron', 'timezone', 'next'}
-- Events and a failure, each built as qless builds it.
local CANCELED_SHAPE = {4, 'jid', 'worker', 'event', 'queue'}
local CONFIG_SET_SHAPE = {3, 'event', 'option', 'value'}
local CONFIG_UNSET_SHAPE = {2, 'event', 'option'}
local FAILED_SHAPE = {5, 'jid', 'event', 'group', 'worker', 'message'}
local FAILURE_SHAPE = {4, 'group', 'message', 'when', 'worker'}

-- The text of object t with its keys in the order qless's table would have
-- on Redis: shape is {hint, keys...}, the size of the constructor qless
-- builds the table with (0 for {}) and the keys in the order qless sets
-- them; t must be built the same way for the printed script, where cjson's
-- own order stands. A nil value is a key set to nil. texts, when given,
-- holds for some keys the JSON text to write instead of t's value; on
-- Redis t's values are written.
local function shaped_json(shape, t, texts)
  if not native then
    return encode(t)
  end
  local order, out = native.order(shape, t), {}
  for i = 1, #order do
    local k = order[i]
    out[i] = qstr(k) .. ':' .. (texts and texts[k] or nested_json(t[k]))
  end
  return '{' .. concat(out, ',') .. '}'
end

-- The text of a list of JSON texts: {} when empty, as cjson writes an
-- empty table.
local function texts_json(texts)
  if #texts == 0 then
    return '{}'
  end
  return '[' .. concat(texts, ',') .. ']'
end

-- The text of a list of objects of one shape (see shaped_json); list is
-- consumed.
local function shaped_list_json(shape, list)
  if not native then
    return encode(list)
  end
  for i = 1, #list do
    list[i] = shaped_json(shape, list[i])
  end
  return texts_json(list)
end

-- The history array's text as it sits in the job object, from the entries'
-- text where that needs no Lua tables.
local function history_text(j, extra)
  if native and j[22] then
    local text = native.history_json(j[22], extra)
    if text then
      return text
    end
  end
  return history_json(j[16], extra)
end

-- The text cjson.encode(job_object(j)) gives on Redis, key for key, built
-- without the table. extra is as for history_json, the entry pop just
-- appended to jid's history. Numbers that cjson refuses (or a missing
-- priority or retries, which drops the key) take the table path, which
-- rereads that history as qless does.
local function job_json(j, extra, jid)
  local priority, expires, retries, remaining = j[6], j[7], j[8], j[9]
  local sum = (priority or HUGE) + expires + (retries or HUGE) + remaining
  if sum ~= sum or sum == HUGE or sum == -HUGE or j[23] or j[24] then
    if extra then
      j[16], j[22] = history_list(jid, j[21])
    end
    if j[23] or j[24] then
      local shape = JOB_THROTTLES_SHAPE
      if j[24] then
        shape = rate.JOB_SHAPES[j[23] and 2 or 1]
      end
      -- The history's text as Redis's Lua orders its entries' keys.
      return shaped_json(shape, job_object_throttled(j),
        native and {history = history_text(j)})
    end
    return shaped_json(JOB_SHAPE, job_object(j))
  end
  return '{"jid":' .. encode(j[1]) .. ',"retries":' .. retries ..
    ',"data":' .. encode(j[10]) .. ',"failure":' .. nested_json(j[12]) ..
    ',"expires":' .. expires .. ',"remaining":' .. remaining ..
    ',"spawned_from_jid":' .. (j[13] and encode(j[13]) or 'false') ..
    ',"dependencies":' .. list_json(j[18]) ..
    ',"klass":' .. qstr(j[2]) ..
    ',"tracked":' .. (j[15] and 'true' or 'false') ..
    ',"tags":' .. nested_json(j[11]) ..
    ',"queue":' .. qstr(j[4]) .. ',"state":' .. qstr(j[3]) ..
    ',"history":' .. history_text(j, extra) ..
    ',"dependents":' .. list_json(j[17]) ..
    ',"priority":' .. priority .. ',"worker":' .. qstr(j[5]) .. '}'
end

-- Jobs as a JSON array, unknown jids skipped: all read first, then encoded.
local function jobs_json(jids)
  local out, n = {}, 0
  for i = 1, #jids do
    local job = job_read(jids[i])
    if job then
      n = n + 1
      out[n] = job
    end
  end
  if n == 0 then
    return '{}'
  end
  for i = 1, n do
    out[i] = job_json(out[i])
  end
  return '[' .. concat(out, ',') .. ']'
end

local function job_exists(jid)
  return call('exists', 'ql:j:' .. jid) == 1
end

-- Work queue scores: higher priority first, then earlier put first.
local function work_add(qname, now, priority, jid)
  if priority ~= '+inf' then
    priority = priority - (now / 10000000000)
  end
  return call('zadd', qkeys(qname)[1], priority, jid)
end

-- Removes jid from the work, locks and scheduled sets of a queue.
local function unqueue(qname, jid)
  local keys = qkeys(qname)
  call('zrem', keys[1], jid)
  call('zrem', keys[2], jid)
  call('zrem', keys[3], jid)
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

-- site, when given, names where qless fails on a tag it cannot put in a
-- key name (a list or null among the tags), after the tags before it.
local function tags_add(now, jid, tags, site)
  for _, tag in ipairs(tags) do
    local t = type(tag)
    if site and t ~= 'string' and t ~= 'number' then
      late_error(site, "attempt to concatenate local 'tag' (a " .. t .. " value)")
    end
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

-- Serving a client's own build (stock), a call that would fail after it
-- has written must not be started here: the build's script raises its own
-- error, at its own line, which only it can phrase. Called before the first
-- write or publish, this hands the call to that script unless ok holds.
local function stock_unless(ok)
  if stock and not ok then
    error('qlessd: handed back to the script', 0)
  end
end

-- The most entries a list argument (tags, depends, throttles) of a call
-- to qlessd's own library takes (docs/limits.md): one call runs alone,
-- and each entry is a few writes. A client's own build (stock) has no
-- such limit, as on Redis. Below Lua 5.1's stack limit (8000), so the
-- printed script refuses an argument list past it with this error too,
-- not with unpack's.
local LIST_MAX = 5000

-- Raises fn(): Arg "name" has more than LIST_MAX entries, before the call
-- has written anything.
local function list_max(fn, name, n)
  if n > LIST_MAX and not stock then
    error(fn .. '(): Arg "' .. name .. '" has more than ' .. LIST_MAX .. ' entries: ' .. n, 0)
  end
end

-- list_max for a JSON array. An entry takes two bytes at least, so
-- shorter text needs no decoding; text that does not decode to a list is
-- left to the call's own checks.
local function list_max_json(fn, name, v)
  if stock or v == nil or #v <= 2 * LIST_MAX + 1 then
    return
  end
  local ok, list = pcall(decode, v)
  if ok and type(list) == 'table' then
    list_max(fn, name, #list)
  end
end

-- Whether decode(s) would give a true value rather than fail.
local function decodes(s)
  local ok, v = pcall(decode, s)
  return ok and v
end
