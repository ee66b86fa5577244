package qless

// qless's key names, as qless-core's scripts spell them.
const (
	configKey       = "ql:config"
	pausedQueuesKey = "ql:paused_queues"
	capacityKey     = "ql:capacity" // queue -> most jobs it may hold (beyond.lua)
)

// jobKey is a job's hash.
func jobKey(jid string) string { return "ql:j:" + jid }

// queueKey is one of a queue's sets: work, locks, scheduled, depends,
// recur.
func queueKey(queue, kind string) string { return "ql:q:" + queue + "-" + kind }

// capacityLimited reports whether qname has a capacity set: its puts then
// go through the library, which counts the queue's jobs. Without any
// capacity set the check is one key lookup.
func capacityLimited(f *fastCall, qname string) bool {
	if !f.tx.Exists(capacityKey) {
		return false
	}
	_, ok, _ := f.tx.HGet(capacityKey, qname)
	return ok
}

// queueThrottleKey is the hash of qname's own throttle (throttle.lua): its
// id is the queue's key prefix, as in qless-core's throttle branch.
func queueThrottleKey(qname string) string { return "ql:th:ql:q:" + qname }

// queueThrottled reports whether qname's own throttle is set: its puts and
// pops then go through the library, which takes and checks its locks.
func queueThrottled(f *fastCall, q *queueNames) bool {
	return f.tx.Exists(q.throttle)
}

// rateKey is the hash of rate name (rate.lua): id, count, seconds; its
// starts are at rateKey(name)+"-starts", a sorted set of one member per
// job started under it, scored by the pop's now. A queue's own rate is
// named by its key prefix, ql:q:<queue>, as its throttle is.
func rateKey(name string) string { return "ql:rt:" + name }

// queueRateKey is the hash of qname's own rate.
func queueRateKey(qname string) string { return rateKey("ql:q:" + qname) }

// queueRated reports whether qname's own rate is set: its pops then go
// through the library, which counts and records the starts.
func queueRated(f *fastCall, q *queueNames) bool {
	return f.tx.Exists(q.rate)
}

// queueThrottleHeld reports whether qname's throttle has locks or waiting
// jobs, set or not: a job leaving qname then goes through the library,
// which lets its lock go and the next in line back to work.
func queueThrottleHeld(f *fastCall, q *queueNames) bool {
	return f.tx.Exists(q.throttleLocks) || f.tx.Exists(q.throttlePending)
}
