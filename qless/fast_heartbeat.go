package qless

import (
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// The job's fields a heartbeat reads, in fieldsHeartbeatJob's order.
const (
	heartbeatFieldQueue = iota
	heartbeatFieldWorker
	heartbeatFieldState
	heartbeatFields
)

var fieldsHeartbeatJob = [heartbeatFields][]byte{[]byte("queue"), []byte("worker"), []byte("state")}

// fastHeartbeat is job_heartbeat for a job running with the calling worker:
// the lock moves to now plus the queue's heartbeat, data (when given) is
// stored as cjson re-encodes it. Errors are the Lua's to raise.
func fastHeartbeat(f *fastCall, args [][]byte) bool {
	if len(args) < 2 || len(args) > 3 {
		return false
	}
	jid, wn := string(args[0]), workerOf(args[1])
	worker := wn.name
	key := jobKey(jid)
	var j [heartbeatFields]string
	var has [heartbeatFields]bool
	if !f.hmget(key, fieldsHeartbeatJob[:], j[:], has[:]) {
		return false
	}
	if !has[heartbeatFieldQueue] || !has[heartbeatFieldWorker] || !has[heartbeatFieldState] ||
		j[heartbeatFieldState] != "running" || j[heartbeatFieldWorker] != worker || worker == "" {
		return false
	}
	qn := namesOfString(j[heartbeatFieldQueue])
	hb, ok := f.heartbeatOf(qn)
	if !ok {
		return false
	}
	expires := f.now + hb
	// The job data and the expiry are views of scratch buffers: HSet
	// copies what it keeps.
	data, hasData := "", len(args) == 3
	if hasData {
		f.json, ok = normalizeJSON(f.json, view(args[2]))
		if !ok || f.stoppedAfter(len(args[2])) {
			return false
		}
		data = view(f.json)
	}
	wjobs, lkey := wn.jobs, qn.locks
	if !f.holds(wjobs, store.TypeZSet) || !f.holds(workersKey, store.TypeZSet) || !f.holds(lkey, store.TypeZSet) {
		return false
	}
	if hasData {
		f.hset(key, "expires", f.numberView(expires), "data", data)
	} else {
		f.hset(key, "expires", f.numberView(expires))
	}
	f.zadd(wjobs, expires, jid)
	if f.switches&switchHeartbeatWorker != 0 {
		f.zadd(workersKey, f.now, worker)
	}
	f.zadd(lkey, expires, jid)
	f.w.WriteInt(scripts.NumberReply(expires))
	return true
}

// heartbeatOf is heartbeat_of: the queue's heartbeat setting, else the
// global one, else 60 seconds; false when a setting is not a plain number.
func (f *fastCall) heartbeatOf(q *queueNames) (float64, bool) {
	fields := [2][]byte{q.heartbeatField, fieldHeartbeat}
	var v [2]string
	var has [2]bool
	if !f.hmget(configKey, fields[:], v[:], has[:]) {
		return 0, false
	}
	switch {
	case has[0]:
		return plainString(v[0])
	case has[1]:
		return plainString(v[1])
	}
	return 60, true
}
