package qless

import (
	"github.com/qlessd/qlessd/store"
)

// The job's fields a put reads, in fieldsPutJob's order.
const (
	putFieldPriority = iota
	putFieldTags
	putFieldQueue
	putFieldState
	putFieldFailure
	putFieldRetries
	putFieldWorker
	putFieldTTL
	putFieldThrottles
	putFieldRates
	putFields
)

var fieldsPutJob = [putFields][]byte{[]byte("priority"), []byte("tags"), []byte("queue"),
	[]byte("state"), []byte("failure"), []byte("retries"), []byte("worker"), []byte("ttl"),
	[]byte("throttles"), []byte("rates")}

// ListMax is the Lua's LIST_MAX (base.lua): the most entries a list
// argument of QLESS takes. Past it the Lua raises the error; a client's own
// build served natively takes any number, in the Lua too.
const ListMax = 5000

// putOptions are put's recognised options; the last of a repeated one wins.
type putOptions struct {
	retries, tags, priority, depends             string
	hasRetries, hasTags, hasPriority, hasDepends bool
}

// putCall is a put's arguments (worker, queue, jid, klass, data, delay,
// options), parsed.
type putCall struct {
	worker, jid, klass string
	q                  *queueNames
	data               []byte
	delay              float64
	opts               putOptions
	tags, depends      []string
}

// putJob is what the job's hash held before the put; has* tells a field
// that is set from one that is not.
type putJob struct {
	priority, tags, queue, state, retries, worker string
	hasPriority, hasTags, hasQueue, hasState      bool
	hasRetries, hasWorker                         bool
}

// putPlan is everything a put writes, worked out before its first write.
type putPlan struct {
	putCall
	key, hkey, depsKey string
	old                putJob
	retries, priority  float64
	oldKeys            [4]string // the old queue's sets the job leaves (when old.hasQueue)
	target             string    // the sorted set the job goes to
	blocking           []string  // the dependencies that hold the job back
	tracked            bool
	tagsText           string
}

// fastPut is queue_put (API put: worker, queue, jid, klass, data, delay,
// options) for a job that is new or not failed, without old dependencies
// or old tags; new tags and dependencies are plain arrays of strings.
func fastPut(f *fastCall, args [][]byte) bool {
	var p putPlan
	if !parsePut(f, args, &p.putCall) || !planPut(f, &p) || !f.writing() {
		return false
	}
	applyPut(f, &p)
	return true
}

// parsePut reads put's arguments into c, false when the Lua must run the
// call: an argument it refuses, an option qless's extensions handle (a
// ttl, throttles, rates), or a queue with a capacity or its own throttle.
func parsePut(f *fastCall, args [][]byte, c *putCall) bool {
	if len(args) < 6 || len(args)%2 != 0 {
		return false
	}
	c.worker, c.q, c.jid, c.klass = string(args[0]), namesOf(args[1]), string(args[2]), string(args[3])
	c.data = args[4]
	if !decodesTruthy(c.data) || f.stoppedAfter(len(c.data)) {
		return false
	}
	var ok bool
	c.delay, ok = plainNumber(args[5])
	if !ok || capacityLimited(f, c.q.name) || queueThrottled(f, c.q) || !parsePutOptions(args[6:], &c.opts) {
		return false
	}
	if c.opts.hasDepends {
		if c.depends, ok = stringArray(c.opts.depends); !ok {
			return false
		}
	}
	if c.opts.hasTags && c.opts.tags != "{}" {
		if c.tags, ok = stringArray(c.opts.tags); !ok {
			return false
		}
	}
	return len(c.tags) <= ListMax && len(c.depends) <= ListMax // past it the Lua refuses it (list_max)
}

// parsePutOptions reads put's option pairs into o, false for an option
// the Lua must handle.
func parsePutOptions(args [][]byte, o *putOptions) bool {
	for i := 0; i+1 < len(args); i += 2 {
		v := string(args[i+1])
		switch string(args[i]) {
		case "retries":
			o.retries, o.hasRetries = v, true
		case "tags":
			o.tags, o.hasTags = v, true
		case "priority":
			o.priority, o.hasPriority = v, true
		case "depends":
			o.depends, o.hasDepends = v, true
		case "ttl":
			return false // beyond.lua sets it
		case "throttles", "rates":
			// throttle.lua and rate.lua; bindings send [] for none
			if v != "[]" && v != "{}" {
				return false
			}
		}
	}
	return true
}

// readPutJob reads the job's hash as a put needs it, false when the Lua
// must run the put: a TTL to clear (beyond.lua), throttles to let go
// (throttle.lua) or rates to drop (rate.lua).
func readPutJob(f *fastCall, key string, j *putJob) bool {
	var v [putFields]string
	var has [putFields]bool
	if !f.hmget(key, fieldsPutJob[:], v[:], has[:]) ||
		has[putFieldTTL] || has[putFieldThrottles] || has[putFieldRates] {
		return false
	}
	*j = putJob{
		priority: v[putFieldPriority], hasPriority: has[putFieldPriority],
		tags: v[putFieldTags], hasTags: has[putFieldTags],
		queue: v[putFieldQueue], hasQueue: has[putFieldQueue],
		state: v[putFieldState], hasState: has[putFieldState],
		retries: v[putFieldRetries], hasRetries: has[putFieldRetries],
		worker: v[putFieldWorker], hasWorker: has[putFieldWorker],
	}
	return true
}

// planPut checks the put against the store and works out its writes into
// p, writing nothing; false when the Lua must run it.
func planPut(f *fastCall, p *putPlan) bool {
	p.key, p.hkey, p.depsKey = jobKey(p.jid), jobHistoryKey(p.jid), jobDependenciesKey(p.jid)
	f.tx.PrefetchMetas(p.key, p.depsKey, p.hkey)
	if !readPutJob(f, p.key, &p.old) {
		return false
	}
	if p.old.hasTags && p.old.tags != "{}" || p.old.state == "failed" && p.old.hasState {
		return false // old tags to drop, or a failed job to take out of its group
	}
	var ok bool
	if p.retries, ok = putNumber(p.opts.retries, p.opts.hasRetries, p.old.retries, p.old.hasRetries, 5); !ok {
		return false
	}
	p.priority, ok = putNumber(p.opts.priority, p.opts.hasPriority, p.old.priority, p.old.hasPriority, 0)
	if !ok || !f.historyReady() {
		return false
	}
	if deps, err := f.tx.SCard(p.depsKey); err != nil || deps > 0 {
		return false
	}
	if p.old.hasQueue {
		oq := namesOfString(p.old.queue)
		if queueThrottleHeld(f, oq) {
			return false
		}
		p.oldKeys = [4]string{oq.work, oq.locks, oq.depends, oq.scheduled}
	}
	p.target = p.q.work
	if p.delay > 0 {
		p.target = p.q.scheduled
	}
	if !planPutDepends(f, p) || !planPutHolds(f, p) {
		return false
	}
	if p.tracked, ok = f.tracked(p.jid); !ok {
		return false
	}
	return planPutTags(f, p)
}

// planPutDepends finds the dependencies that hold the job back: those
// with a state other than complete, read before the job's own write (a
// job depending on itself goes to the Lua).
func planPutDepends(f *fastCall, p *putPlan) bool {
	for _, d := range p.depends {
		var st [1]string
		var hs [1]bool
		if f.stopped() || d == p.jid || !f.hmget(jobKey(d), fieldsState, st[:], hs[:]) {
			return false
		}
		if hs[0] && st[0] != "complete" {
			if !f.holds(jobDependentsKey(d), store.TypeSet) {
				return false
			}
			p.blocking = append(p.blocking, d)
		}
	}
	if len(p.blocking) > 0 {
		p.target = p.q.depends
		return f.holds(p.depsKey, store.TypeSet)
	}
	return true
}

// planPutHolds checks that each key the put writes holds its type or
// nothing.
func planPutHolds(f *fastCall, p *putPlan) bool {
	if !f.holds(p.key, store.TypeHash) || !f.holds(p.hkey, store.TypeList) ||
		!f.holds(p.target, store.TypeZSet) || !f.holds(queuesKey, store.TypeZSet) ||
		(p.old.state == "complete" && !f.holds(completedKey, store.TypeZSet)) ||
		(p.old.hasWorker && p.old.worker != "" && !f.holds(workerJobsKey(p.old.worker), store.TypeZSet)) {
		return false
	}
	if p.old.hasQueue {
		for _, k := range p.oldKeys {
			if !f.holds(k, store.TypeZSet) {
				return false
			}
		}
	}
	return true
}

// planPutTags checks the tags' keys and writes the job's tags field.
func planPutTags(f *fastCall, p *putPlan) bool {
	p.tagsText = "{}"
	if len(p.tags) == 0 {
		return true
	}
	p.tagsText = stringArrayJSON(p.tags)
	if !f.holds(tagsKey, store.TypeZSet) {
		return false
	}
	for _, tag := range p.tags {
		if f.stopped() || !f.holds(tagKey(tag), store.TypeZSet) {
			return false
		}
	}
	return true
}

// applyPut makes the planned writes, in the Lua's order, and replies.
func applyPut(f *fastCall, p *putPlan) {
	qjson := jsonString(p.q.name)
	if f.hears(logChannel) {
		f.c.Publish(logChannel, `{"jid":`+jsonString(p.jid)+`,"event":"put","queue":`+qjson+`}`)
	}
	f.historyAppend(p.hkey, "["+f.historyWhen()+`,"put",{"q":`+qjson+"}]")
	applyPutLeave(f, p)
	for _, tag := range p.tags {
		f.tick()
		f.zadd(tagKey(tag), f.now, p.jid)
		f.zincrby(tagsKey, 1, tag)
	}
	newState := "waiting"
	if p.delay > 0 {
		newState = "scheduled"
	}
	f.hset(p.key, "jid", p.jid, "klass", p.klass, "data", string(p.data), "priority", f.number(p.priority),
		"tags", p.tagsText, "state", newState, "worker", "", "expires", "0", "queue", p.q.name,
		"retries", f.number(p.retries), "remaining", f.number(p.retries),
		"time", fixed20(f.now))
	for _, d := range p.blocking {
		f.tick()
		f.tx.SAdd(jobDependentsKey(d), p.jid)
		f.tx.SAdd(p.depsKey, d)
	}
	switch {
	case len(p.blocking) > 0:
		f.zadd(p.target, f.now, p.jid)
		if p.delay > 0 {
			f.hset(p.key, "state", "depends", "scheduled", f.number(f.now+p.delay))
		} else {
			f.hset(p.key, "state", "depends")
		}
	case p.delay > 0:
		f.zadd(p.target, f.now+p.delay, p.jid)
	default:
		f.zadd(p.target, f.workScore(p.priority), p.jid)
	}
	f.zaddNX(queuesKey, f.now, p.q.name)
	if p.tracked {
		f.publish(putChannel, p.jid)
	}
	p.q.counts[EventPut].Add(1)
	f.reply(p.jid)
}

// applyPutLeave takes the job out of where it was: its old queue, its old
// worker (who hears it lost the lock when another worker puts it) and the
// completed jobs.
func applyPutLeave(f *fastCall, p *putPlan) {
	if p.old.hasQueue {
		for _, k := range p.oldKeys {
			f.zrem(k, p.jid)
		}
	}
	if p.old.hasWorker && p.old.worker != "" {
		f.zrem(workerJobsKey(p.old.worker), p.jid)
		if p.old.worker != p.worker {
			lost := lockLostJSON(p.jid, p.old.worker)
			f.publish(workerChannel(p.old.worker), lost)
			f.publish(logChannel, lost)
		}
	}
	if p.old.state == "complete" {
		f.zrem(completedKey, p.jid)
	}
}

// putNumber is tonumber(option or stored or default) for plain numbers.
func putNumber(opt string, hasOpt bool, stored string, hasStored bool, def float64) (float64, bool) {
	switch {
	case hasOpt:
		return plainString(opt)
	case hasStored:
		return plainString(stored)
	}
	return def, true
}

// lockLostJSON is lock_lost_json: the event cjson writes for {jid, event,
// worker}.
func lockLostJSON(jid, worker string) string {
	return `{"jid":` + jsonString(jid) + `,"event":"lock_lost","worker":` + jsonString(worker) + `}`
}
