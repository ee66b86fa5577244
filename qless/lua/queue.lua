-- Queues: put, pop, peek and the housekeeping that runs before handing out
-- work (lost locks, due scheduled jobs, recurring jobs to spawn), plus
-- statistics and counts.

-- The fields of a day's wait or run statistics: count, mean, variance
-- term, then the histogram's buckets s0-s59, m1-m59, h1-h23 and d1-d6.
local STAT_FIELDS = {'total', 'mean', 'vk'}
do
  local n = 3
  local function add(prefix, from, to)
    for i = from, to do
      n = n + 1
      STAT_FIELDS[n] = prefix .. i
    end
  end
  add('s', 0, 59)
  add('m', 1, 59)
  add('h', 1, 23)
  add('d', 1, 6)
end

-- The histogram bucket of a whole number of seconds, or nil for a time
-- outside STAT_FIELDS (negative, -0, a week or more, NaN).
local function stat_bucket(val)
  if val >= 1 then
    if val < 60 then
      return STAT_FIELDS[4 + val]
    elseif val < 3600 then
      return STAT_FIELDS[63 + floor(val / 60)]
    elseif val < 86400 then
      return STAT_FIELDS[122 + floor(val / 3600)]
    elseif val < 604800 then
      return STAT_FIELDS[145 + floor(val / 86400)]
    end
  elseif val == 0 and 1 / val > 0 then
    return 's0'
  end
  return nil
end

-- The key of a day's wait or run statistics of a queue.
local function stat_key(now, qname, name)
  return 'ql:s:' .. name .. ':' .. day_bin(now) .. ':' .. qname
end

-- One step of the day's running mean and variance term. When stored,
-- count, mean and vk are as read (text, or false when missing); otherwise
-- they are the numbers of the step before.
local function stat_step(count, mean, vk, val, stored)
  if stored then
    count = count or 0
    if count == 0 then
      return 1, val, 0
    end
    local c, m, k = tonumber(count), tonumber(mean), tonumber(vk)
    if not (c and m and k) then
      -- Not numbers: Lua's own arithmetic on the stored text, errors and all.
      count = count + 1
      local oldmean = mean
      mean  = mean + (val - mean) / count
      return count, mean, vk + (val - mean) * (val - oldmean)
    end
    count, mean, vk = c, m, k
  end
  count = count + 1
  local oldmean = mean
  mean = mean + (val - mean) / count
  return count, mean, vk + (val - mean) * (val - oldmean)
end

-- The histogram bucket (seconds, minutes, hours, days) of a time.
local function stat_field(val)
  val = floor(val)
  local field = stat_bucket(val)
  if field then
    return field
  elseif val < 60 then
    return 's' .. val
  elseif val < 3600 then
    return 'm' .. floor(val / 60)
  elseif val < 86400 then
    return 'h' .. floor(val / 3600)
  end
  return 'd' .. floor(val / 86400)
end

-- Folds one wait or run time into the day's statistics kept under key.
local function stat(key, val)
  local v = call('hmget', key, 'total', 'mean', 'vk')
  local count, mean, vk = stat_step(v[1], v[2], v[3], val, true)
  call('hincrby', key, stat_field(val), 1)
  call('hset', key, 'total', count, 'mean', mean, 'vk', vk)
end

-- stat for several times in a row: qless reads and writes the statistics
-- for each time; stat_fold does the same arithmetic (the numbers written
-- would read back unchanged) on what stat_flush then writes once. s[1] is
-- the key; s[2], s[3], s[4] hold count, mean and variance term, s[5] and
-- s[6] the buckets hit and how often.
local function stat_fold(s, val)
  if s[2] == nil then
    local v = call('hmget', s[1], 'total', 'mean', 'vk')
    s[2], s[3], s[4] = stat_step(v[1], v[2], v[3], val, true)
    s[5], s[6] = {stat_field(val)}, {1}
    return
  end
  s[2], s[3], s[4] = stat_step(s[2], s[3], s[4], val, false)
  local field, fields, hits = stat_field(val), s[5], s[6]
  for i = 1, #fields do
    if fields[i] == field then
      hits[i] = hits[i] + 1
      return
    end
  end
  fields[#fields + 1] = field
  hits[#fields] = 1
end

-- Writes what stat_fold gathered, fields created in qless's order.
local function stat_flush(s)
  local fields, hits = s[5], s[6]
  if not fields then
    return
  end
  local key = s[1]
  call('hincrby', key, fields[1], hits[1])
  call('hset', key, 'total', s[2], 'mean', s[3], 'vk', s[4])
  for i = 2, #fields do
    call('hincrby', key, fields[i], hits[i])
  end
end

-- Moves up to count due scheduled jobs into the work queue.
local function check_scheduled(now, qname, count)
  if count == 0 then return end
  local skey = qkeys(qname)[3]
  local due
  if count then
    due = call('zrangebyscore', skey, 0, now, 'LIMIT', 0, count)
  else
    due = call('zrangebyscore', skey, 0, now)
  end
  if #due == 0 then return end
  for _, jid in ipairs(due) do
    local priority = tonumber(call('hget', 'ql:j:' .. jid, 'priority') or 0)
    work_add(qname, now, priority, jid)
    call('hset', 'ql:j:' .. jid, 'state', 'waiting')
  end
  call('zrem', skey, unpack(due))
end

-- Puts recurring job jid's next job into qname, timed at score: r is the
-- template as check_recurring reads it, tags its tags decoded. Returns the
-- new job's jid.
local function recur_spawn(now, qname, jid, r, tags, score)
  local klass, data, priority, rawtags, retries = r[1], r[2], r[3], r[4], r[5]
  local throttles = (not stock and r[8]) or nil
  local rates = (not stock and r[12]) or nil
  local n = call('hincrby', 'ql:r:' .. jid, 'count', 1)
  local child = jid .. '-' .. n
  if type(tags) ~= 'table' then
    -- Tags recur accepted as JSON that is no array ("x", 5, null).
    late_error('recur-tags-ipairs', "bad argument #1 to 'ipairs' (table expected, got " .. type(tags) .. ")")
  end
  tags_add(now, child, tags, 'recur-tag-concat')
  call('hset', 'ql:j:' .. child,
    'jid', child, 'klass', klass, 'data', data, 'priority', priority,
    'tags', rawtags, 'state', 'waiting', 'worker', '', 'expires', 0,
    'queue', qname, 'retries', retries, 'remaining', retries,
    'time', format('%.20f', score), 'spawned_from_jid', jid)
  if throttles then
    call('hset', 'ql:j:' .. child, 'throttles', throttles)
  elseif not stock then
    call('hdel', 'ql:j:' .. child, 'throttles') -- a job of that jid before
  end
  if rates then
    call('hset', 'ql:j:' .. child, 'rates', rates)
  elseif not stock then
    call('hdel', 'ql:j:' .. child, 'rates')
  end
  history_add(score, child, 'put', {q = qname})
  if not throttled_put(score, qname, child, throttles, priority) then
    work_add(qname, score, priority, child)
  end
  return child
end

-- The fields of a recurring job recur_spawn, recurring_due and
-- check_recurring read.
local function recur_template(jid)
  return call('hmget', 'ql:r:' .. jid, 'klass', 'data', 'priority',
    'tags', 'retries', 'interval', 'backlog', 'throttles', 'type', 'cron',
    'timezone', 'rates')
end

-- The run times a recurring job owes at now, at most limit of them, and
-- its score after them. r is its hash's fields as check_recurring reads
-- them; a cron recur's runs come from Go (qless/cron.go), whose backlog
-- keeps the latest backlog runs owed.
local function recurring_due(now, score, r, limit)
  local backlog = tonumber(r[7] or 0)
  if r[9] == 'cron' and native and r[10] then
    local due, nxt = native.cron_due(r[10], r[11], score, now, backlog, limit)
    if due then
      return due, nxt
    end
  end
  local interval = tonumber(r[6])
  if backlog ~= 0 then
    local num = ((now - score) / interval)
    if num > backlog then
      score = score + (ceil(num - backlog) * interval)
    end
  end
  local due = {}
  while (score <= now) and (#due < limit) do
    due[#due + 1] = score
    score = score + interval
  end
  return due, score
end

-- Spawns the jobs that recurring jobs of this queue owe, at most count.
-- A spawned job has its recurring job's throttles and is placed as put
-- places one: waiting for a throttle that is full (its queue's too).
local function check_recurring(now, qname, count)
  if count <= 0 then return end
  local rkey = qkeys(qname)[4]
  local due = call('zrangebyscore', rkey, 0, now, 'WITHSCORES', 'LIMIT', 0, count)
  local moved = 0
  for i = 1, #due, 2 do
    local jid = due[i]
    local r = recur_template(jid)
    local tags = decode(r[4])
    local times, score = recurring_due(now, floor(tonumber(due[i + 1])), r, count - moved)
    for _, at in ipairs(times) do
      moved = moved + 1
      recur_spawn(now, qname, jid, r, tags, at)
    end
    if #times > 0 then
      call('zadd', rkey, score, jid)
    end
  end
  count_jobs(qname, 'put', moved)
end

-- Fails a job whose retries ran out through lock expiry.
local function exhaust_by_stall(now, qname, jid, worker)
  unqueue(qname, jid)
  throttles_release(jid, qname, call('hget', 'ql:j:' .. jid, 'throttles'))
  -- qless reads the whole job for its queue name.
  local job = job_table(jid)
  if not job then
    error('attempt to index a nil value', 0)
  end
  local group = 'failed-retries-' .. job.queue
  local message = 'Job exhausted retries in queue "' .. qname .. '"'
  history_add(now, jid, 'failed', {group = group})
  call('hset', 'ql:j:' .. jid, 'state', 'failed', 'worker', '', 'expires', '',
    'failure', shaped_json(FAILURE_SHAPE, {group = group, message = message, when = now, worker = ''}))
  call('sadd', 'ql:failures', group)
  call('lpush', 'ql:f:' .. group, jid)
  if is_tracked(jid) then
    publish('ql:failed', jid)
  end
  publish('ql:log', shaped_json(FAILED_SHAPE, {jid = jid, event = 'failed',
    group = group, worker = worker, message = message}))
  local skey = 'ql:s:stats:' .. day_bin(now) .. ':' .. qname
  call('hincrby', skey, 'failures', 1)
  call('hincrby', skey, 'failed', 1)
  count_jobs(qname, 'failed', 1)
end

-- Handles expired locks: the first expiry warns the worker and grants a
-- grace period, the second hands the job out again (or fails it when its
-- retries are used up). Returns the jids to hand out again.
local function invalidate_locks(now, qname, count)
  local jids, n = {}, 0
  local lkey = qkeys(qname)[2]
  local expired = call('zrangebyscore', lkey, '-inf', now, 'LIMIT', 0, count)
  local grace_period
  for _, jid in ipairs(expired) do
    local key = 'ql:j:' .. jid
    local j = call('hmget', key, 'worker', 'grace')
    local worker = j[1]
    if not worker then
      -- A lock whose job hash is gone: qless dies here on Lua 5.1's own
      -- concatenation error; say it in Lua 5.1's words on every engine.
      late_error('locks-worker', "attempt to concatenate local 'worker' (a boolean value)")
    end
    call('zrem', wkey(worker), jid)
    if grace_period == nil then
      grace_period = tonumber(config('grace-period'))
      if grace_period == nil then
        -- config.set takes any text; qless compares it with 0.
        late_error('locks-grace', 'attempt to compare nil with number')
      end
    end
    local send_message = (tonumber(j[2] or 0) ~= 1)
    local invalidate = not send_message
    if grace_period <= 0 then
      send_message = true
      invalidate = true
    end
    if send_message then
      if is_tracked(jid) then
        publish('ql:stalled', jid)
      end
      history_add(now, jid, 'timed-out')
      if not invalidate then
        call('hset', key, 'grace', 1)
      end
      local encoded = lock_lost_json(jid, worker)
      publish('ql:w:' .. worker, encoded)
      publish('ql:log', encoded)
      call('zadd', lkey, now + grace_period, jid)
      call('hincrby', 'ql:s:stats:' .. day_bin(now) .. ':' .. qname, 'retries', 1)
    end
    if invalidate then
      if j[2] then
        call('hdel', key, 'grace')
      end
      local remaining = tonumber(call('hincrby', key, 'remaining', -1))
      if remaining < 0 then
        exhaust_by_stall(now, qname, jid, worker)
      else
        n = n + 1
        jids[n] = jid
        count_jobs(qname, 'retried', 1)
      end
    end
  end
  return jids
end

-- Appends up to count jids from the top of the work queue to jids.
local function take_work(qname, jids, count)
  if count == 0 then return jids end
  local work = call('zrevrange', qkeys(qname)[1], 0, count - 1)
  local n = #jids
  for i = 1, #work do
    jids[n + i] = work[i]
  end
  return jids
end

local function queue_paused(qname)
  return call('sismember', 'ql:paused_queues', qname) == 1
end

local function queue_peek(now, qname, count)
  local c = tonumber(count)
  if not c then
    error('Peek(): Arg "count" missing or not a number: ' .. tostring(count), 0)
  end
  count = c
  expire_due(now, qname)
  local jids = call('zrangebyscore', 'ql:q:' .. qname .. '-locks', '-inf', now, 'LIMIT', 0, count)
  check_recurring(now, qname, count - #jids)
  check_scheduled(now, qname, count - #jids)
  return take_work(qname, jids, count - #jids)
end

-- Pops jids[1..n] in order, keeping each job's first read in jobs. Given
-- stats and locks, the statistics are folded into stats and the lock
-- entries (expires, jid) appended to locks for the caller to write; one
-- ZADD would refuse a NaN expires, which must fail at the first job.
local function pop_jobs(now, jids, n, jobs, worker, expires, tail, stamp,
    skey, wjobs, lkey, stats, locks)
  -- qless reads each job before popping it (failing on a jid without data)
  -- and again for the reply. Popping changes only worker, expires, state
  -- and history, so the reply reuses the first read with those updated and
  -- the history entry appended, unless the append trimmed the history.
  for i = 1, n do
    local jid = jids[i]
    local job = job_read(jid)
    if not job then
      late_error('pop-unpack', "bad argument #1 to 'unpack' (table expected, got nil)")
    end
    local key = job[20]
    jobs[i] = job
    job[19] = history_add(now, jid, 'popped', nil, tail, job[21])
    local time = tonumber(job[14] or now)
    if stats then
      stat_fold(stats, now - time)
      call('hset', key, 'time', stamp, 'worker', worker, 'expires', expires, 'state', 'running')
      locks[2 * i - 1], locks[2 * i] = expires, jid
    else
      stat(skey, now - time)
      if expires ~= expires then
        -- A NaN lock expiry (heartbeat set to nan): ZADD refuses it after
        -- qless has already stamped the job's time.
        call('hset', key, 'time', stamp)
      end
      call('zadd', wjobs, expires, jid)
      call('hset', key, 'time', stamp, 'worker', worker, 'expires', expires, 'state', 'running')
      call('zadd', lkey, expires, jid)
    end
    if job[15] then
      publish('ql:popped', jid)
    end
  end
end

-- xpcall's handler that keeps the error as raised: pcall would turn the
-- error of a redis.call into its text.
local function raw_error(err)
  return err
end

-- Serving a client's build, pop must not start when Redis will refuse
-- the count qless ranges with, after qless registered the worker: a count
-- whose number text is not an integer. The count is the one left after
-- max-concurrency, which pop reads again.
local function stock_pop_check(keys, cfg, now, count)
  local max_concurrency = tonumber(cfg[3] or 0)
  if max_concurrency > 0 then
    count = min(max(0, max_concurrency - call('zcount', keys[2], now, '+inf')), count)
  end
  stock_unless(count == 0 or (count == floor(count) and count < 1e17 and count > -1e17))
end

-- Hands out up to count jobs and returns them as pop's JSON reply.
local function queue_pop(now, qname, worker, count)
  need(worker, 'Pop(): Arg "worker" missing')
  local c = tonumber(count)
  if not c then
    error('Pop(): Arg "count" missing or not a number: ' .. tostring(count), 0)
  end
  count = c
  local keys = qkeys(qname)
  local cfg = call('hmget', 'ql:config', keys[6], 'heartbeat', keys[7], 'max-job-history')
  local expires = now + tonumber(cfg[1] or cfg[2] or 60)
  history_limit = tonumber(cfg[4] or 100)
  if queue_paused(qname) then
    return '{}'
  end
  if stock then
    stock_pop_check(keys, cfg, now, count)
  end
  call('zadd', 'ql:workers', now, worker)
  expire_due(now, qname)
  local max_concurrency = tonumber(cfg[3] or 0)
  if max_concurrency > 0 then
    local running = call('zcount', keys[2], now, '+inf')
    count = min(max(0, max_concurrency - running), count)
    if count == 0 then
      return '{}'
    end
  end
  local jids = invalidate_locks(now, qname, count)
  local relocked = #jids
  -- Neither check does anything when the queue has no recurring and no
  -- scheduled jobs: one EXISTS instead of two range reads.
  if count ~= relocked and call('exists', keys[4], keys[3]) > 0 then
    check_recurring(now, qname, count - #jids)
    check_scheduled(now, qname, count - #jids)
  end
  take_work(qname, jids, count - #jids)
  local n = #jids
  if not stock and n > relocked then
    n = throttled_take(now, qname, jids, relocked, count)
  end
  if n == 0 then
    return '{}'
  end
  local wjobs, lkey = wkey(worker), keys[2]
  local qworker = encode(worker)
  local tail = ',"popped",{"worker":' .. qworker .. '}]'
  local stamp = format('%.20f', now)
  local skey = stat_key(now, qname, 'wait')
  local jobs = {}
  if n > 1 and n <= 1000 and expires == expires then
    -- The lock and statistics writes of the jobs go out together after the
    -- loop (nothing in it reads them); when a job fails, those of the jobs
    -- before it still go out, as qless had written them job by job.
    local stats, locks = {skey}, {}
    local ok, err = xpcall(function()
      pop_jobs(now, jids, n, jobs, worker, expires, tail, stamp, skey, wjobs,
        lkey, stats, locks)
    end, raw_error)
    if #locks > 0 then
      call('zadd', wjobs, unpack(locks))
      call('zadd', lkey, unpack(locks))
    end
    stat_flush(stats)
    if not ok then
      error(err, 0)
    end
  else
    pop_jobs(now, jids, n, jobs, worker, expires, tail, stamp, skey, wjobs, lkey)
  end
  call('zrem', keys[1], unpack(jids))
  count_jobs(qname, 'popped', n)
  -- A jid handed out twice (a lost lock also waiting as work) is replied
  -- in its final state in both places, from its last read.
  local last
  if relocked > 0 and n > relocked then
    last = {}
    for i = 1, n do
      last[jids[i]] = i
    end
  end
  local extra = '{"when":' .. floor(now) .. ',"what":"popped","worker":' .. qworker .. '}'
  local out, texts = {}, last and {}
  for i = 1, n do
    local k = last and last[jids[i]] or i
    local text = texts and texts[k]
    if not text then
      local job = jobs[k]
      job[3], job[5], job[7] = 'running', worker, expires
      if job[19] then
        text = job_json(job, extra, jids[k])
      else
        job[16], job[22] = history_list(jids[k], job[21])
        text = job_json(job)
      end
      if texts then
        texts[k] = text
      end
    end
    out[i] = text
  end
  return '[' .. concat(out, ',') .. ']'
end

-- Removes a failed job from its failure group and fixes the counters.
local function unfail_cleanup(jid, failure)
  failure = decode(failure)
  call('lrem', 'ql:f:' .. failure.group, 0, jid)
  if call('llen', 'ql:f:' .. failure.group) == 0 then
    call('srem', 'ql:failures', failure.group)
  end
  return failure.when - (failure.when % 86400)
end

local function queue_put(now, qname, worker, jid, klass, raw_data, delay, ...)
  need(jid, 'Put(): Arg "jid" missing')
  need(klass, 'Put(): Arg "klass" missing')
  if not decode(raw_data) then
    error('Put(): Arg "data" missing or not JSON: ' .. tostring(raw_data), 0)
  end
  local d = tonumber(delay)
  if not d then
    error('Put(): Arg "delay" not a number: ' .. tostring(delay), 0)
  end
  delay = d
  local nargs = select('#', ...)
  if nargs % 2 == 1 then
    error('Odd number of additional args: ' .. tostring({...}), 0)
  end
  local o_retries, o_tags, o_priority, o_depends, o_ttl, o_throttles, o_rates
  for i = 1, nargs, 2 do
    local k, v = select(i, ...)
    if k == 'retries' then o_retries = v
    elseif k == 'tags' then o_tags = v
    elseif k == 'priority' then o_priority = v
    elseif k == 'depends' then o_depends = v
    elseif k == 'ttl' and not stock then o_ttl = v
    elseif k == 'throttles' and not stock then o_throttles = v
    elseif k == 'rates' and not stock then o_rates = v
    end
  end
  list_max_json('Put', 'tags', o_tags)
  list_max_json('Put', 'depends', o_depends)
  list_max_json('Put', 'throttles', o_throttles)
  list_max_json('Put', 'rates', o_rates)
  local throttles = throttles_option(o_throttles, 'Put')
  local rates = rate.rates_option(o_rates, 'Put')
  if o_ttl then
    local t = tonumber(o_ttl)
    if not t or t <= 0 or t ~= t or t == HUGE then
      error('Put(): Arg "ttl" not a positive number: ' .. tostring(o_ttl), 0)
    end
    o_ttl = t
  end

  local key = 'ql:j:' .. jid
  local old = call('hmget', key, 'priority', 'tags', 'queue', 'state',
    'failure', 'retries', 'worker', 'ttl', 'throttles', 'rates')
  local priority, tags, oldqueue, state, failure, retries, oldworker =
    old[1], old[2], old[3], old[4], old[5], old[6], old[7]
  capacity_check(qname, oldqueue)

  -- The old tags go first, even when an option below turns out bad.
  if stock and tags and tags ~= '{}' then
    stock_unless(tonumber(o_retries or retries or 5) and
      tonumber(o_priority or priority or 0) and decodes(o_tags or tags) and
      (o_depends == nil or decodes(o_depends)))
  end
  if tags and tags ~= '{}' then
    tags_remove(jid, decode(tags))
    call('hset', key, 'tags', '{}')
  end

  retries = tonumber(o_retries or retries or 5)
  if not retries then
    error('Put(): Arg "retries" not a number: ' .. tostring(o_retries), 0)
  end
  -- No tags (none given, none kept) need no decoding: they store as '{}'.
  local tags_json = '{}'
  tags = o_tags or tags
  if tags and tags ~= '{}' then
    tags = decode(tags)
    if not tags then
      error('Put(): Arg "tags" not JSON' .. tostring(o_tags), 0)
    end
    tags_json = nil
  else
    tags = EMPTY
  end
  priority = tonumber(o_priority or priority or 0)
  if not priority then
    error('Put(): Arg "priority" not a number' .. tostring(o_priority), 0)
  end
  local depends = EMPTY
  if o_depends then
    depends = decode(o_depends)
    if not depends then
      error('Put(): Arg "depends" not JSON: ' .. tostring(o_depends), 0)
    end
  end

  -- depends or tags that decoded to something else than a list fail where
  -- qless first uses them, which may be after it wrote (a string has a
  -- length, so "" fails only at the last loop).
  local dtype = type(depends)
  if dtype ~= 'table' and dtype ~= 'string' then
    late_error('put-depends-length', "attempt to get length of local 'depends' (a " .. dtype .. " value)")
  end
  if #depends > 0 then
    if dtype ~= 'table' then
      late_error('put-depends-ipairs', "bad argument #1 to 'ipairs' (table expected, got " .. dtype .. ")")
    end
    local new = {}
    for _, dep in ipairs(depends) do new[dep] = 1 end
    for _, dep in ipairs(call('smembers', key .. '-dependencies')) do
      if new[dep] == nil then
        call('srem', 'ql:j:' .. dep .. '-dependents', jid)
        call('srem', key .. '-dependencies', dep)
      end
    end
  end

  local qqueue = qstr(qname)
  publish('ql:log', '{"jid":' .. encode(jid) .. ',"event":"put","queue":' .. qqueue .. '}')
  history_add(now, jid, 'put', nil, ',"put",{"q":' .. qqueue .. '}]')

  if oldqueue then
    local keys = qkeys(oldqueue)
    call('zrem', keys[1], jid)
    call('zrem', keys[2], jid)
    call('zrem', keys[5], jid)
    call('zrem', keys[3], jid)
    throttles_release(jid, oldqueue, old[9])
  end

  if oldworker and oldworker ~= '' then
    call('zrem', wkey(oldworker), jid)
    if oldworker ~= worker then
      local encoded = lock_lost_json(jid, oldworker)
      publish('ql:w:' .. oldworker, encoded)
      publish('ql:log', encoded)
    end
  end

  if state == 'complete' then
    call('zrem', 'ql:completed', jid)
  end
  ttl_clear(jid, oldqueue, old[8])

  if type(tags) ~= 'table' then
    late_error('put-tags-ipairs', "bad argument #1 to 'ipairs' (table expected, got " .. type(tags) .. ")")
  end
  tags_add(now, jid, tags, 'put-tag-concat')

  if state == 'failed' then
    local bin = unfail_cleanup(jid, failure)
    call('hincrby', 'ql:s:stats:' .. bin .. ':' .. qname, 'failed', -1)
  end

  call('hset', key,
    'jid', jid, 'klass', klass, 'data', raw_data, 'priority', priority,
    'tags', tags_json or encode(tags), 'state', ((delay > 0) and 'scheduled') or 'waiting',
    'worker', '', 'expires', 0, 'queue', qname, 'retries', retries,
    'remaining', retries, 'time', format('%.20f', now))
  if throttles then
    call('hset', key, 'throttles', throttles)
  elseif old[9] and not stock then
    call('hdel', key, 'throttles')
  end
  if rates then
    call('hset', key, 'rates', rates)
  elseif old[10] and not stock then
    call('hdel', key, 'rates')
  end

  if dtype ~= 'table' then
    late_error('put-depends-ipairs-again', "bad argument #1 to 'ipairs' (table expected, got " .. dtype .. ")")
  end
  for _, j in ipairs(depends) do
    local s = call('hget', 'ql:j:' .. j, 'state')
    if s and s ~= 'complete' then
      call('sadd', 'ql:j:' .. j .. '-dependents', jid)
      call('sadd', key .. '-dependencies', j)
    end
  end

  local waits = call('scard', key .. '-dependencies') > 0
  if delay > 0 then
    if waits then
      call('zadd', qkeys(qname)[5], now, jid)
      call('hset', key, 'state', 'depends', 'scheduled', now + delay)
    else
      call('zadd', qkeys(qname)[3], now + delay, jid)
    end
  elseif waits then
    call('zadd', qkeys(qname)[5], now, jid)
    call('hset', key, 'state', 'depends')
  elseif not throttled_put(now, qname, jid, throttles, priority) then
    work_add(qname, now, priority, jid)
  end

  if o_ttl then
    ttl_set(now, qname, jid, o_ttl)
  end
  remember_queue(now, qname)
  count_jobs(qname, 'put', 1)
  if is_tracked(jid) then
    publish('ql:put', jid)
  end
  return jid
end

local function queue_unfail(now, qname, group, count)
  need(group, 'Unfail(): Arg "group" missing')
  local c = tonumber(count or 25)
  if not c then
    error('Unfail(): Arg "count" not a number: ' .. tostring(count), 0)
  end
  count = c
  local fkey = 'ql:f:' .. group
  local jids = call('lrange', fkey, -count, -1)
  local item = {q = qname}
  for _, jid in ipairs(jids) do
    local data = job_table(jid)
    -- qless appends the history entry of a job it could not read, then
    -- fails using it.
    history_add(now, jid, 'put', item)
    if not data then
      late_error('unfail-data', "attempt to index local 'data' (a nil value)")
    end
    call('hset', 'ql:j:' .. data.jid, 'state', 'waiting', 'worker', '', 'expires', 0,
      'queue', qname, 'remaining', data.retries or 5)
    work_add(qname, now, data.priority, data.jid)
  end
  call('ltrim', fkey, 0, -count - 1)
  if call('llen', fkey) == 0 then
    call('srem', 'ql:failures', group)
  end
  return #jids
end

-- One statistic's object, built as qless builds it: count, mean and
-- histogram set in turn, then std.
local function stats_of(key)
  local v = call('hmget', key, unpack(STAT_FIELDS))
  local results = {}
  local count = tonumber(v[1]) or 0
  local vk = tonumber(v[3])
  results.count = count
  results.mean = tonumber(v[2]) or 0
  results.histogram = {}
  for i = 4, #STAT_FIELDS do
    results.histogram[i - 3] = tonumber(v[i]) or 0
  end
  if count > 1 then
    results.std = sqrt(vk / (count - 1))
  else
    results.std = 0
  end
  return results
end

local function queue_stats_json(now, qname, date)
  local d = tonumber(date)
  if not d then
    error('Stats(): Arg "date" missing or not a number: ' .. (date or 'nil'), 0)
  end
  local bin = day_bin(d)
  local v = call('hmget', 'ql:s:stats:' .. bin .. ':' .. qname, 'retries', 'failed', 'failures', 'expired')
  local t = {
    retries  = tonumber(v[1] or 0),
    failed   = tonumber(v[2] or 0),
    failures = tonumber(v[3] or 0),
    wait     = stats_of('ql:s:wait:' .. bin .. ':' .. qname),
    run      = stats_of('ql:s:run:' .. bin .. ':' .. qname)
  }
  local shape = STATS_SHAPE
  if not stock and v[4] then
    -- jobs whose TTL passed that day (beyond.lua), when there are some
    t.expired, shape = tonumber(v[4]), STATS_EXPIRED_SHAPE
  end
  return shaped_json(shape, t, native and {
    wait = shaped_json(STAT_SHAPE, t.wait),
    run = shaped_json(STAT_SHAPE, t.run),
  })
end

local function queue_counts(now, qname)
  local prefix = 'ql:q:' .. qname
  local stalled = call('zcount', prefix .. '-locks', 0, now)
  check_scheduled(now, qname, nil)
  local t = {
    name      = qname,
    waiting   = call('zcard', prefix .. '-work'),
    stalled   = stalled,
    running   = call('zcard', prefix .. '-locks') - stalled,
    scheduled = call('zcard', prefix .. '-scheduled'),
    depends   = call('zcard', prefix .. '-depends'),
    recurring = call('zcard', prefix .. '-recur'),
    paused    = queue_paused(qname),
  }
  -- Jobs waiting for a throttle, when there are some (throttle.lua).
  local throttled = not stock and call('zcard', prefix .. '-throttled') or 0
  if throttled > 0 then
    t.throttled = throttled
  end
  -- Waiting jobs a pop now would pass over for a rate (rate.lua), when
  -- there are some.
  local rated = rate.held(now, qname)
  if rated > 0 then
    t.rated = rated
  end
  return t
end

local function queue_length(qname)
  local prefix = 'ql:q:' .. qname
  return call('zcard', prefix .. '-locks') + call('zcard', prefix .. '-work') +
    call('zcard', prefix .. '-scheduled')
end
