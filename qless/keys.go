package qless

// qless's key and channel names, as qless-core's scripts spell them: every
// ql: name the Go code uses is built here, one constant or function per
// kind, so a reader finds the keyspace in one file.

// Keys with one instance.
const (
	configKey       = "ql:config"
	pausedQueuesKey = "ql:paused_queues"
	capacityKey     = "ql:capacity" // queue -> most jobs it may hold (beyond.lua)
	queuesKey       = "ql:queues"   // queue -> when it was first put to
	completedKey    = "ql:completed"
	workersKey      = "ql:workers" // worker -> last seen
	tagsKey         = "ql:tags"    // tag -> jobs carrying it
	trackedKey      = "ql:tracked"
	failuresKey     = "ql:failures" // the failure groups
	boundKey        = "ql:bound"    // the worker bindings, kept across restarts (bind.go)
	// ratesSetKey is the set of the names of the rates set (rate.lua):
	// while it is empty no job can be held by a rate.
	ratesSetKey = "ql:rates"
)

// Pub/sub channels with one instance.
const (
	logChannel       = "ql:log"
	putChannel       = "ql:put"
	poppedChannel    = "ql:popped"
	completedChannel = "ql:completed"
)

// jobKey is a job's hash.
func jobKey(jid string) string { return "ql:j:" + jid }

// jobHistoryKey is a job's history list.
func jobHistoryKey(jid string) string { return "ql:j:" + jid + "-history" }

// jobDependenciesKey is the set of the jobs jid waits for.
func jobDependenciesKey(jid string) string { return "ql:j:" + jid + "-dependencies" }

// jobDependentsKey is the set of the jobs waiting for jid.
func jobDependentsKey(jid string) string { return "ql:j:" + jid + "-dependents" }

// queuePrefix is the prefix of a queue's keys, also the id of its own
// throttle and rate.
func queuePrefix(queue string) string { return "ql:q:" + queue }

// queueKey is one of a queue's sets: work, locks, scheduled, depends,
// recur.
func queueKey(queue, kind string) string { return "ql:q:" + queue + "-" + kind }

// tagKey is the sorted set of the jobs tagged tag.
func tagKey(tag string) string { return "ql:t:" + tag }

// failureGroupKey is the list of the jobs failed in group.
func failureGroupKey(group string) string { return "ql:f:" + group }

// workerJobsKey is the sorted set of the jobs worker holds.
func workerJobsKey(worker string) string { return "ql:w:" + worker + ":jobs" }

// workerChannel is the channel of worker's events.
func workerChannel(worker string) string { return "ql:w:" + worker }

// statKey is a queue's statistics hash of kind ("wait" or "run") for the
// day bin day, written as Lua writes the number.
func statKey(kind, day, queue string) string { return "ql:s:" + kind + ":" + day + ":" + queue }

// queueThrottleKey is the hash of qname's own throttle (throttle.lua): its
// id is the queue's key prefix, as in qless-core's throttle branch.
func queueThrottleKey(qname string) string { return "ql:th:" + queuePrefix(qname) }

// rateKey is the hash of rate name (rate.lua): id, count, seconds; its
// starts are at rateKey(name)+"-starts", a sorted set of one member per
// job started under it, scored by the pop's now. A queue's own rate is
// named by its key prefix, ql:q:<queue>, as its throttle is.
func rateKey(name string) string { return "ql:rt:" + name }

// queueRateKey is the hash of qname's own rate.
func queueRateKey(qname string) string { return rateKey(queuePrefix(qname)) }

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

// queueThrottled reports whether qname's own throttle is set: its puts and
// pops then go through the library, which takes and checks its locks.
func queueThrottled(f *fastCall, q *queueNames) bool {
	return f.tx.Exists(q.throttle)
}

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
