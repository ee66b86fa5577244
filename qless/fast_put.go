package qless

import (
	"github.com/qlessd/qlessd/store"
)

var fieldsPutJob = [][]byte{[]byte("priority"), []byte("tags"), []byte("queue"),
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

// fastPut is queue_put (API put: worker, queue, jid, klass, data, delay,
// options) for a job that is new or not failed, without old dependencies
// or old tags; new tags and dependencies are plain arrays of strings.
func fastPut(f *fastCall, args [][]byte) bool {
	if len(args) < 6 || len(args)%2 != 0 {
		return false
	}
	worker, qn, jid, klass := string(args[0]), namesOf(args[1]), string(args[2]), string(args[3])
	qname := qn.name
	data := args[4]
	if !decodesTruthy(data) || f.stoppedAfter(len(data)) {
		return false
	}
	delay, ok := plainNumber(args[5])
	if !ok || capacityLimited(f, qname) || queueThrottled(f, qn) {
		return false
	}
	var o putOptions
	for i := 6; i+1 < len(args); i += 2 {
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
			if v := string(args[i+1]); v != "[]" && v != "{}" {
				return false
			}
		}
	}
	var tags, depends []string
	if o.hasDepends {
		if depends, ok = stringArray(o.depends); !ok {
			return false
		}
	}
	if o.hasTags && o.tags != "{}" {
		if tags, ok = stringArray(o.tags); !ok {
			return false
		}
	}
	if len(tags) > ListMax || len(depends) > ListMax {
		return false // the Lua refuses it (list_max)
	}

	key := "ql:j:" + jid
	hkey, depsKey := key+"-history", key+"-dependencies"
	f.tx.PrefetchMetas(key, depsKey, hkey)
	var old [10]string
	var has [10]bool
	if !f.hmget(key, fieldsPutJob, old[:], has[:]) || has[7] || has[8] || has[9] {
		return false // a TTL to clear (beyond.lua), throttles to let go (throttle.lua) or rates to drop (rate.lua)
	}
	oldTags, oldQueue, state, oldWorker := old[1], old[2], old[3], old[6]
	if has[1] && oldTags != "{}" || state == "failed" && has[3] {
		return false
	}
	retries, ok := putNumber(o.retries, o.hasRetries, old[5], has[5], 5)
	if !ok {
		return false
	}
	priority, ok := putNumber(o.priority, o.hasPriority, old[0], has[0], 0)
	if !ok || !f.historyReady() {
		return false
	}
	deps, err := f.tx.SCard(depsKey)
	if err != nil || deps > 0 {
		return false
	}
	var oldKeys [4]string
	if has[2] {
		oq := namesOfString(oldQueue)
		if queueThrottleHeld(f, oq) {
			return false
		}
		oldKeys = [4]string{oq.work, oq.locks, oq.depends, oq.scheduled}
	}
	target := qn.work
	if delay > 0 {
		target = qn.scheduled
	}
	// The dependencies that hold the job back: those with a state other
	// than complete, read before the job's own write (a job depending on
	// itself goes to the Lua).
	var blocking []string
	for _, d := range depends {
		var st [1]string
		var hs [1]bool
		if f.stopped() || d == jid || !f.hmget("ql:j:"+d, fieldsState, st[:], hs[:]) {
			return false
		}
		if hs[0] && st[0] != "complete" {
			if !f.holds("ql:j:"+d+"-dependents", store.TypeSet) {
				return false
			}
			blocking = append(blocking, d)
		}
	}
	if len(blocking) > 0 {
		target = qn.depends
		if !f.holds(key+"-dependencies", store.TypeSet) {
			return false
		}
	}
	if !f.holds(key, store.TypeHash) || !f.holds(hkey, store.TypeList) ||
		!f.holds(target, store.TypeZSet) || !f.holds("ql:queues", store.TypeZSet) ||
		(state == "complete" && !f.holds("ql:completed", store.TypeZSet)) ||
		(has[6] && oldWorker != "" && !f.holds(workerJobsKey(oldWorker), store.TypeZSet)) {
		return false
	}
	if has[2] {
		for _, k := range oldKeys {
			if !f.holds(k, store.TypeZSet) {
				return false
			}
		}
	}
	isTracked, ok := f.tracked(jid)
	if !ok {
		return false
	}
	tagsText := "{}"
	if len(tags) > 0 {
		tagsText = stringArrayJSON(tags)
		if !f.holds("ql:tags", store.TypeZSet) {
			return false
		}
		for _, tag := range tags {
			if f.stopped() || !f.holds("ql:t:"+tag, store.TypeZSet) {
				return false
			}
		}
	}

	// Checked: from here on the Lua's writes, in its order.
	if !f.writing() {
		return false
	}
	qjson := jsonString(qname)
	if f.hears("ql:log") {
		f.c.Publish("ql:log", `{"jid":`+jsonString(jid)+`,"event":"put","queue":`+qjson+`}`)
	}
	f.historyAppend(hkey, "["+f.historyWhen()+`,"put",{"q":`+qjson+"}]")
	if has[2] {
		for _, k := range oldKeys {
			f.zrem(k, jid)
		}
	}
	if has[6] && oldWorker != "" {
		f.zrem(workerJobsKey(oldWorker), jid)
		if oldWorker != worker {
			lost := lockLostJSON(jid, oldWorker)
			f.publish("ql:w:"+oldWorker, lost)
			f.publish("ql:log", lost)
		}
	}
	if state == "complete" {
		f.zrem("ql:completed", jid)
	}
	for _, tag := range tags {
		f.tick()
		f.zadd("ql:t:"+tag, f.now, jid)
		f.zincrby("ql:tags", 1, tag)
	}
	newState := "waiting"
	if delay > 0 {
		newState = "scheduled"
	}
	f.hset(key, "jid", jid, "klass", klass, "data", string(data), "priority", f.number(priority),
		"tags", tagsText, "state", newState, "worker", "", "expires", "0", "queue", qname,
		"retries", f.number(retries), "remaining", f.number(retries),
		"time", fixed20(f.now))
	for _, d := range blocking {
		f.tick()
		f.tx.SAdd("ql:j:"+d+"-dependents", jid)
		f.tx.SAdd(key+"-dependencies", d)
	}
	switch {
	case len(blocking) > 0:
		f.zadd(target, f.now, jid)
		if delay > 0 {
			f.hset(key, "state", "depends", "scheduled", f.number(f.now+delay))
		} else {
			f.hset(key, "state", "depends")
		}
	case delay > 0:
		f.zadd(target, f.now+delay, jid)
	default:
		f.zadd(target, f.workScore(priority), jid)
	}
	f.zaddNX("ql:queues", f.now, qname)
	if isTracked {
		f.publish("ql:put", jid)
	}
	qn.counts[EventPut].Add(1)
	f.reply(jid)
	return true
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
