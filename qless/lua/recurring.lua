-- Recurring jobs: the template stored in ql:r:<jid> and its schedule in the
-- queue's -recur sorted set. Spawning happens in check_recurring.

local function need_recurring(jid)
  if jid == nil then error('Recurring(): no jid provided', 0) end
end

-- recur's options, after interval and offset, checked in qless's order;
-- throttles (qless-core's throttle branch, as put's) last, unknown to a
-- client's own build. Returns tags, priority, retries, backlog and the
-- throttles to store (nil: none).
local function recur_options(...)
  local o = {}
  for i = 3, select('#', ...), 2 do
    local k, v = select(i, ...)
    if (k ~= 'throttles' and k ~= 'rates') or not stock then
      o[k] = v
    end
  end
  list_max_json('Recur', 'tags', o.tags)
  list_max_json('Recur', 'throttles', o.throttles)
  list_max_json('Recur', 'rates', o.rates)
  local tags = decode(o.tags or '{}')
  if not tags then
    error('Recur(): Arg "tags" must be JSON string array: ' .. tostring(o.tags), 0)
  end
  local priority = tonumber(o.priority or 0)
  if not priority then
    error('Recur(): Arg "priority" not a number: ' .. tostring(o.priority), 0)
  end
  local retries = tonumber(o.retries or 0)
  if not retries then
    error('Recur(): Arg "retries" not a number: ' .. tostring(o.retries), 0)
  end
  local backlog = tonumber(o.backlog or 0)
  if not backlog then
    error('Recur(): Arg "backlog" not a number: ' .. tostring(o.backlog), 0)
  end
  local throttles = throttles_option(o.throttles, 'Recur')
  return tags, priority, retries, backlog, throttles, rate.rates_option(o.rates, 'Recur')
end

-- A cron schedule (Go computes it: qless/cron.go) gives the first run
-- after now and the interval stored beside it: the gap from that run to
-- the next. qlessd spawns a cron recur by its schedule alone; a client's
-- own qless.lua on Redis reading the hash spawns by that interval.
local function cron_start(now, expr, tz)
  if not native then
    error('Recur(): schedule type "cron" needs qlessd: a script on Redis has no cron parser', 0)
  end
  local first, err = native.cron_next(expr, tz, now)
  if not first then
    error(err, 0)
  end
  local second = native.cron_next(expr, tz, first) or (first + 1)
  return first, max(second - first, 1)
end

-- interval's arguments: the interval and the first run.
local function interval_start(now, a1, a2)
  local interval = tonumber(a1)
  if not interval then
    error('Recur(): Arg "interval" not a number: ' .. tostring(a1), 0)
  end
  local offset = tonumber(a2)
  if not offset then
    error('Recur(): Arg "offset" not a number: ' .. tostring(a2), 0)
  end
  if interval <= 0 then
    error('Recur(): Arg "interval" must be greater than 0', 0)
  end
  return now + offset, interval
end

local function recur(now, qname, jid, klass, raw_data, spec, ...)
  need(jid, 'RecurringJob On(): Arg "jid" missing')
  need(klass, 'RecurringJob On(): Arg "klass" missing')
  need(spec, 'RecurringJob On(): Arg "spec" missing')
  if not decode(raw_data) then
    error('RecurringJob On(): Arg "data" not JSON: ' .. tostring(raw_data), 0)
  end
  -- cron is qlessd's with its expression and timezone; without them, and
  -- serving a client's build, it is unknown as in qless.
  local a1, a2 = ...
  local cron = spec == 'cron' and a2 ~= nil and not stock
  if spec ~= 'interval' and not cron then
    error('Recur(): schedule type "' .. tostring(spec) .. '" unknown', 0)
  end
  local score, interval
  if cron then
    score, interval = cron_start(now, a1, a2)
  else
    score, interval = interval_start(now, a1, a2)
  end
  local nargs = select('#', ...)
  if nargs % 2 == 1 then
    error('Odd number of additional args: ' .. tostring({...}), 0)
  end
  local tags, priority, retries, backlog, throttles, rates = recur_options(...)
  local rkey = 'ql:r:' .. jid
  local old = call('hmget', rkey, 'count', 'queue', 'throttles', 'cron', 'rates')
  if old[2] then
    call('zrem', 'ql:q:' .. old[2] .. '-recur', jid)
  end
  call('hset', rkey, 'jid', jid, 'klass', klass, 'data', raw_data,
    'priority', priority, 'tags', encode(tags), 'state', 'recur',
    'queue', qname, 'type', spec, 'count', old[1] or 0,
    'interval', interval, 'retries', retries, 'backlog', backlog)
  if cron then
    call('hset', rkey, 'cron', a1, 'timezone', a2)
  elseif old[4] and not stock then
    call('hdel', rkey, 'cron', 'timezone')
  end
  -- As a job's, the field is there only for a recurring job given some.
  if throttles then
    call('hset', rkey, 'throttles', throttles)
  elseif old[3] and not stock then
    call('hdel', rkey, 'throttles')
  end
  if rates then
    call('hset', rkey, 'rates', rates)
  elseif old[5] and not stock then
    call('hdel', rkey, 'rates')
  end
  call('zadd', 'ql:q:' .. qname .. '-recur', score, jid)
  remember_queue(now, qname)
  return jid
end

-- A recurring job as JSON; one given throttles shows them after the
-- fields qless shows, as a job put with some does.
local function recur_get(jid)
  local r = call('hmget', 'ql:r:' .. jid, 'jid', 'klass', 'state', 'queue',
    'priority', 'interval', 'retries', 'count', 'data', 'tags', 'backlog',
    'throttles', 'type', 'cron', 'timezone', 'rates')
  if not r[1] then
    return nil
  end
  local t = {
    jid      = r[1],
    klass    = r[2],
    state    = r[3],
    queue    = r[4],
    priority = tonumber(r[5]),
    interval = tonumber(r[6]),
    retries  = tonumber(r[7]),
    count    = tonumber(r[8]),
    data     = r[9],
    tags     = decode(r[10]),
    backlog  = tonumber(r[11] or 0)
  }
  if stock then
    return shaped_json(RECUR_SHAPE, t)
  end
  if r[12] then
    t.throttles = decode(r[12])
  end
  -- A cron recur shows its schedule and its next run (qlessd only).
  local shape = RECUR_SHAPE
  if r[13] == 'cron' and r[14] then
    t.cron, t.timezone = r[14], r[15]
    t.next = tonumber(call('zscore', 'ql:q:' .. r[4] .. '-recur', jid))
    shape = RECUR_CRON_SHAPE
  elseif t.throttles then
    shape = RECUR_THROTTLES_SHAPE
  end
  -- Rates (rate.lua), when given, set last.
  if r[16] then
    t.rates = decode(r[16])
    shape = {unpack(shape)}
    shape[#shape + 1] = 'rates'
  end
  return shaped_json(shape, t)
end

local NUMERIC_RECUR_FIELDS = {priority = true, interval = true, retries = true}

-- Serving a client's build, recur.update must not start when an option
-- would fail after earlier ones were stored.
local function stock_recur_update_check(rkey, ...)
  local r = call('hmget', rkey, 'queue', 'interval')
  for i = 1, select('#', ...), 2 do
    local key, value = select(i, ...)
    stock_unless(value ~= nil)
    if NUMERIC_RECUR_FIELDS[key] or key == 'backlog' then
      stock_unless(tonumber(value))
      stock_unless(key ~= 'interval' or (r[1] and tonumber(r[2])))
    elseif key == 'data' then
      stock_unless(decodes(value))
    elseif key == 'queue' then
      stock_unless(r[1])
    else
      stock_unless(key == 'klass')
    end
  end
end

-- A cron recur's runs come from its schedule: recur.update refuses
-- interval for it before writing anything.
local function cron_update_check(rkey, jid, ...)
  if call('hget', rkey, 'type') ~= 'cron' then return end
  for i = 1, select('#', ...), 2 do
    if (select(i, ...)) == 'interval' then
      error('Recur(): Arg "interval" does not apply to recurring job ' .. jid ..
        ' on a cron schedule; recur it again to change its schedule', 0)
    end
  end
end

local function recur_update(now, jid, ...)
  local rkey = 'ql:r:' .. jid
  if call('exists', rkey) == 0 then
    error('Recur(): No recurring job ' .. jid, 0)
  end
  if not stock then
    cron_update_check(rkey, jid, ...)
  end
  if stock and select('#', ...) > 2 then
    stock_recur_update_check(rkey, ...)
  end
  for i = 1, select('#', ...), 2 do
    local key, value = select(i, ...)
    if value == nil then
      error('No value provided for ' .. tostring(key), 0)
    end
    if NUMERIC_RECUR_FIELDS[key] then
      local v = tonumber(value)
      if not v then
        error('Recur(): Arg "' .. key .. '" must be a number: ' .. tostring(value), 0)
      end
      if key == 'interval' then
        local r = call('hmget', rkey, 'queue', 'interval')
        call('zincrby', 'ql:q:' .. r[1] .. '-recur', v - tonumber(r[2]), jid)
      end
      call('hset', rkey, key, v)
    elseif key == 'data' then
      if not decode(value) then
        error('Recur(): Arg "data" is not JSON-encoded: ' .. tostring(value), 0)
      end
      call('hset', rkey, 'data', value)
    elseif key == 'klass' then
      call('hset', rkey, 'klass', value)
    elseif key == 'queue' then
      local old = call('hget', rkey, 'queue')
      local okey = 'ql:q:' .. old .. '-recur'
      local score = call('zscore', okey, jid)
      call('zrem', okey, jid)
      call('zadd', 'ql:q:' .. value .. '-recur', score, jid)
      call('hset', rkey, 'queue', value)
      remember_queue(now, value)
    elseif key == 'backlog' then
      local v = tonumber(value)
      if not v then
        error('Recur(): Arg "backlog" not a number: ' .. tostring(value), 0)
      end
      call('hset', rkey, 'backlog', v)
    else
      error('Recur(): Unrecognized option "' .. key .. '"', 0)
    end
  end
  return true
end

-- recur.tag appends new tags; recur.untag removes tags. Both reply with the
-- stored JSON list.
local function recur_tag(jid, ...)
  list_max('Tag', 'tags', select('#', ...))
  local rkey = 'ql:r:' .. jid
  local tags = call('hget', rkey, 'tags')
  if not tags then
    error('Tag(): Job ' .. jid .. ' does not exist', 0)
  end
  tags = decode(tags)
  local have = {}
  for _, t in ipairs(tags) do have[t] = true end
  local n = #tags
  for i = 1, select('#', ...) do
    local t = (select(i, ...))
    if not have[t] then
      n = n + 1
      tags[n] = t
    end
  end
  tags = encode(tags)
  call('hset', rkey, 'tags', tags)
  return tags
end

local function recur_untag(jid, ...)
  list_max('Untag', 'tags', select('#', ...))
  local rkey = 'ql:r:' .. jid
  local tags = call('hget', rkey, 'tags')
  if not tags then
    error('Untag(): Job ' .. jid .. ' does not exist', 0)
  end
  tags = encode(without_tags(decode(tags), {...}, 1))
  call('hset', rkey, 'tags', tags)
  return tags
end

local function unrecur(jid)
  local rkey = 'ql:r:' .. jid
  local qname = call('hget', rkey, 'queue')
  if qname then
    call('zrem', 'ql:q:' .. qname .. '-recur', jid)
    call('del', rkey)
  end
  return true
end

-- qlessd's own: pause, resume and run now (the dashboard's). A paused
-- recurring job keeps its template in ql:r:<jid> and its place in the
-- queue's -recur set, its next run moved RECUR_PAUSED seconds (some 31,700
-- years) on. So every build's check_recurring, a client's own included,
-- finds it never due; recur.update's interval change shifts it as it
-- shifts any next run, a queue change carries it along, and resume takes
-- the offset off again. `recur` again (re-registering it) resumes it.
local RECUR_PAUSED = 1e12

-- The queue of recurring job jid, its -recur set and its score there.
local function recur_place(fn, jid)
  local qname = call('hget', 'ql:r:' .. jid, 'queue')
  if not qname then
    error(fn .. '(): No recurring job ' .. jid, 0)
  end
  local rkey = 'ql:q:' .. qname .. '-recur'
  return qname, rkey, tonumber(call('zscore', rkey, jid))
end

local function recur_pause(jid)
  local _, rkey, score = recur_place('recur.pause', jid)
  if score and score < RECUR_PAUSED then
    call('zadd', rkey, score + RECUR_PAUSED, jid)
  end
  return true
end

-- Resuming skips the runs missed while paused: the next run is the first
-- one of the old schedule that is still to come, so a long pause does not
-- spawn a job per missed interval.
local function recur_resume(now, jid)
  local _, rkey, score = recur_place('recur.resume', jid)
  if not score or score < RECUR_PAUSED then
    return true
  end
  local nextrun = score - RECUR_PAUSED
  local r = call('hmget', 'ql:r:' .. jid, 'interval', 'type', 'cron', 'timezone')
  local interval = tonumber(r[1])
  if nextrun < now and r[2] == 'cron' and native and r[3] then
    -- A cron schedule's next run after the pause is its own, not a
    -- multiple of the stored interval.
    nextrun = native.cron_next(r[3], r[4], now - 1) or nextrun
  elseif nextrun < now and interval and interval > 0 then
    nextrun = nextrun + ceil((now - nextrun) / interval) * interval
  end
  call('zadd', rkey, nextrun, jid)
  return true
end

-- Spawns one job of recurring job jid now, paused or not, leaving its
-- schedule alone; replies the new job's jid.
local function recur_run(now, jid)
  local qname = recur_place('recur.run', jid)
  local r = recur_template(jid)
  local child = recur_spawn(now, qname, jid, r, decode(r[4]), now)
  count_jobs(qname, 'put', 1)
  return child
end
