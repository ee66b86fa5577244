-- Rate limits (qlessd's own): a rate lets at most `count` jobs start in
-- any `seconds`, a sliding window ending at the pop's now.
--   ql:rt:<name>          hash: id, count, seconds
--   ql:rt:<name>-starts   one member per start ('<now %.20f>:<jid>'),
--                         scored by the pop's now; entries that left the
--                         window are pruned when a start is recorded
--   ql:rates              the names of the rates set (so a queue's counts
--                         look at jobs' rates only while some rate exists)
-- A job's rates are those it was put with (the job field 'rates', a JSON
-- array, present only then) and its queue's own, ql:q:<queue>, while that
-- rate is set. A job whose rate has no room just stays where it is in its
-- queue's work set, state waiting: the pop passes over it and takes the
-- next in line, and the next pop tries it again first. While the queue's
-- own rate has no room the pop takes no new work at all. So rates keep
-- the order of the queue and hold no list of their own; nothing moves
-- back when a window frees. A job without rates touches none of this.
-- Serving a client's own build (stock) none of it runs.

-- All of it lives in the table rate (declared in base.lua): a chunk may
-- have at most 200 locals.
rate.SHAPE = {4, 'id', 'count', 'seconds', 'used'}
-- A queue's counts (COUNTS_SHAPE's table) with rated set after, and with
-- throttled (throttle.lua) and then rated set after.
rate.COUNTS_SHAPE = {8, 'name', 'waiting', 'stalled', 'running',
  'scheduled', 'depends', 'recurring', 'paused', 'rated'}
rate.COUNTS_THROTTLED_SHAPE = {8, 'name', 'waiting', 'stalled', 'running',
  'scheduled', 'depends', 'recurring', 'paused', 'throttled', 'rated'}

function rate.need_rate(fn, name)
  if name == nil or name == '' then
    error(fn .. '(): Arg "name" missing', 0)
  end
end

-- name's count and seconds, or nil when the rate is not set.
function rate.def(name)
  local v = call('hmget', 'ql:rt:' .. name, 'count', 'seconds')
  local c, s = tonumber(v[1]), tonumber(v[2])
  if not (c and s) then
    return nil
  end
  return c, s
end

-- How many starts name's window ending at now holds (no write: the
-- entries past it are pruned only by rate.start).
function rate.used(now, name, seconds)
  local skey = 'ql:rt:' .. name .. '-starts'
  local n = call('zcard', skey)
  if n == 0 then
    return 0
  end
  return n - call('zcount', skey, '-inf', now - seconds)
end

-- Whether name lets one more job start at now (an unset rate does).
function rate.room(now, name)
  local c, s = rate.def(name)
  if not c then
    return true
  end
  return rate.used(now, name, s) < c
end

-- Records jid's start under name at now, forgetting what left the window.
function rate.start(now, name, jid)
  local c, s = rate.def(name)
  if not c then
    return
  end
  local skey = 'ql:rt:' .. name .. '-starts'
  call('zremrangebyscore', skey, '-inf', now - s)
  call('zadd', skey, now, format('%.20f', now) .. ':' .. jid)
end

-- The rates a job is under besides its queue's: raw is its 'rates' field.
function rate.names(raw)
  if not raw then
    return nil
  end
  return decode(raw)
end

-- Whether every rate in names has room at now.
function rate.rates_room(now, names)
  for _, name in ipairs(names) do
    if not rate.room(now, name) then
      return false
    end
  end
  return true
end

-- The queue's own rate id when that rate is set, else nil.
function rate.queue_rate(qname)
  local qrid = 'ql:q:' .. qname
  if call('exists', 'ql:rt:' .. qrid) == 1 then
    return qrid
  end
  return nil
end

-- A put or recur option that names things (rates, throttles): the JSON
-- array of non-empty strings v decoded, or fn's error naming arg and what
-- it lists. Here in rate's table, as base.lua says why; throttle.lua's
-- throttles_option uses it too.
function rate.name_list(v, fn, arg, what)
  local ok, list = pcall(decode, v)
  local good = ok and type(list) == 'table'
  if good then
    local n = 0
    for k, name in pairs(list) do
      n = n + 1
      if type(k) ~= 'number' or type(name) ~= 'string' or name == '' then
        good = false
      end
    end
    good = good and n == #list
  end
  if not good then
    error(fn .. '(): Arg "' .. arg .. '" not a JSON array of ' .. what .. ': ' .. tostring(v), 0)
  end
  return list
end

-- The option rates of put and recur: the text to store, nil for none.
function rate.rates_option(v, fn)
  if v == nil then
    return nil
  end
  local list = rate.name_list(v, fn, 'rates', 'rate names')
  -- A name given twice counts once: one start per job and rate.
  local out, seen = {}, {}
  for _, name in ipairs(list) do
    if not seen[name] then
      seen[name] = true
      out[#out + 1] = name
    end
  end
  if #out == 0 then
    return nil
  end
  return encode(out)
end

function rate.set(name, count, seconds)
  rate.need_rate('rate.set', name)
  local c = tonumber(count)
  if not c or c < 1 or c ~= floor(c) or c == HUGE then
    error('rate.set(): Arg "count" not a whole number, 1 or more: ' .. tostring(count), 0)
  end
  local s = tonumber(seconds)
  if not s or not (s > 0) or s == HUGE then
    error('rate.set(): Arg "seconds" not a positive number: ' .. tostring(seconds), 0)
  end
  call('hset', 'ql:rt:' .. name, 'id', name, 'count', c, 'seconds', s)
  call('sadd', 'ql:rates', name)
end

function rate.get_json(now, name)
  rate.need_rate('rate.get', name)
  local c, s = rate.def(name)
  local t = {id = name, count = c or 0, seconds = s or 0, used = 0}
  if c then
    t.used = rate.used(now, name, s)
  end
  return shaped_json(rate.SHAPE, t)
end

-- Deleting a rate lifts its limit and forgets its starts.
function rate.delete(name)
  rate.need_rate('rate.delete', name)
  call('del', 'ql:rt:' .. name, 'ql:rt:' .. name .. '-starts')
  call('srem', 'ql:rates', name)
end

-- How many of qname's waiting jobs a pop at now would pass over for a
-- rate: all of them while the queue's own rate has no room, else those
-- with a rate of their own that has none. Given a table list, their jids
-- are appended to it in line order. Read only; jobs' rates are looked at
-- only while some rate is set.
function rate.held(now, qname, list)
  if stock or call('scard', 'ql:rates') == 0 then
    return 0
  end
  local work = qkeys(qname)[1]
  local qrid = rate.queue_rate(qname)
  local all = qrid and not rate.room(now, qrid)
  if all and not list then
    return call('zcard', work)
  end
  local room, n = {}, 0
  for _, jid in ipairs(call('zrevrange', work, 0, -1)) do
    local held = all
    if not held then
      local names = rate.names(call('hget', 'ql:j:' .. jid, 'rates'))
      for _, name in ipairs(names or {}) do
        if room[name] == nil then
          room[name] = rate.room(now, name)
        end
        if not room[name] then
          held = true
          break
        end
      end
    end
    if held then
      n = n + 1
      if list then
        list[n] = jid
      end
    end
  end
  return n
end
