package tests

import (
	"fmt"
	"strings"
	"testing"
)

// miniQless is a small qless-shaped queue of our own: jobs and queues under
// ql:* keys, commands dispatched from ARGV as qless.lua does, errors raised
// with error(), error_reply and {err=...}. It keeps to string keys, so it
// checks the scripting bridge apart from the collection types; the stock
// qless.lua and our own qless are exercised separately.
const miniQless = `
local ns = 'ql:'
local function jkey(jid) return ns .. 'j:' .. jid end
local function qkey(q) return ns .. 'q:' .. q .. ':work' end
local function decode(s)
  local t = {}
  for k, v in string.gmatch(s, '([^=;]+)=([^;]*)') do t[k] = v end
  return t
end
local function encode(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. '=' .. tostring(t[k]) end
  return table.concat(parts, ';')
end
local function list(q)
  local s = redis.call('get', qkey(q))
  local t = {}
  if not s then return t end
  for jid in string.gmatch(s, '[^,]+') do t[#t + 1] = jid end
  return t
end
local function store(q, l)
  if #l == 0 then redis.call('del', qkey(q)) else redis.call('set', qkey(q), table.concat(l, ',')) end
end

local api = {}
function api.put(now, queue, jid, data, priority)
  assert(queue and queue ~= '', 'Put(): Arg "queue" missing')
  assert(jid, 'Put(): Arg "jid" missing')
  priority = assert(tonumber(priority or 0), 'Put(): Arg "priority" not a number: ' .. tostring(priority))
  local job = {state = 'waiting', queue = queue, data = data or '{}', priority = priority, worker = '', expires = 0, put = now}
  redis.call('set', jkey(jid), encode(job))
  local l = list(queue)
  table.insert(l, jid)
  store(queue, l)
  return jid
end
function api.pop(now, queue, worker, count)
  count = assert(tonumber(count), 'Pop(): Arg "count" missing or not a number: ' .. tostring(count))
  local l, out = list(queue), {}
  while #out < count and #l > 0 do
    local jid = table.remove(l, 1)
    local job = decode(redis.call('get', jkey(jid)))
    job.state, job.worker, job.expires = 'running', worker, now + 60
    redis.call('set', jkey(jid), encode(job))
    out[#out + 1] = {jid, job.data, tonumber(job.expires), job.priority + 0.5}
  end
  store(queue, l)
  return out
end
function api.heartbeat(now, jid, worker)
  local s = redis.call('get', jkey(jid))
  if not s then error('Heartbeat(): Job ' .. jid .. ' does not exist') end
  local job = decode(s)
  if job.worker ~= worker then
    error('Heartbeat(): Job given out to another worker: ' .. job.worker)
  end
  job.expires = now + 60
  redis.call('set', jkey(jid), encode(job))
  return tonumber(job.expires)
end
function api.complete(now, jid, worker)
  local s = redis.call('get', jkey(jid))
  if not s then return redis.error_reply('Complete(): Job ' .. jid .. ' does not exist') end
  local job = decode(s)
  if job.state ~= 'running' then
    return {err = 'Complete(): Job ' .. jid .. ' is not currently running: ' .. job.state}
  end
  job.state, job.worker, job.expires = 'complete', '', 0
  redis.call('set', jkey(jid), encode(job))
  return {ok = 'complete'}
end
function api.get(now, jid)
  local s = redis.call('get', jkey(jid))
  if not s then return false end
  local job = decode(s)
  return {jid, job.state, job.queue, job.worker, tonumber(job.expires), job.data,
    string.format('%s|%d|%.3f|%5.1f', job.queue, job.priority, now / 7, job.put / 3), tostring(now / 7)}
end

local name = assert(table.remove(ARGV, 1), 'Must provide a command')
local command = assert(api[name], 'Unknown command ' .. name)
local now = assert(tonumber(table.remove(ARGV, 1)), 'Arg "now" missing or not a number')
return command(now, unpack(ARGV))
`

func TestScriptingQlessWorkload(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sha := p.Same(t, "SCRIPT", "LOAD", miniQless)
	sha = strings.TrimSpace(sha[strings.Index(sha, "\n")+1:])
	call := func(args ...string) { p.Same(t, append([]string{"EVALSHA", sha, "0"}, args...)...) }
	now := 1700000000.25
	tick := func() string { now += 1.5; return fmt.Sprintf("%.2f", now) }
	for i := 0; i < 20; i++ {
		q := []string{"emails", "reports"}[i%2]
		call("put", tick(), q, fmt.Sprintf("jid-%02d", i), fmt.Sprintf(`{"n":%d}`, i), fmt.Sprint(i%5))
	}
	call("put", tick(), "emails", "jid-bad", "{}", "high")
	call("put", tick(), "")
	call("pop", tick(), "emails", "worker-a", "3")
	call("pop", tick(), "reports", "worker-b", "4")
	call("pop", tick(), "reports", "worker-b", "x")
	call("heartbeat", tick(), "jid-00", "worker-a")
	call("heartbeat", tick(), "jid-00", "worker-b")
	call("heartbeat", tick(), "jid-99", "worker-a")
	call("complete", tick(), "jid-00", "worker-a")
	call("complete", tick(), "jid-00", "worker-a")
	call("complete", tick(), "jid-98", "worker-a")
	call("complete", tick(), "jid-19", "worker-a")
	for _, j := range []string{"jid-00", "jid-01", "jid-02", "jid-19", "jid-bad", "jid-404"} {
		call("get", tick(), j)
	}
	call("pop", tick(), "emails", "worker-c", "100")
	call("pop", tick(), "emails", "worker-c", "1")
	call("nosuch", tick())
	call("get", "not-a-time", "jid-00")
	call()
	for _, k := range []string{"ql:q:emails:work", "ql:q:reports:work", "ql:j:jid-04", "ql:j:jid-05"} {
		p.Same(t, "GET", k)
	}
	p.Same(t, "EXISTS", "ql:q:emails:work")
}
