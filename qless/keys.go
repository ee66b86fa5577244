package qless

// qless's key names, as qless-core's scripts spell them.
const (
	configKey       = "ql:config"
	pausedQueuesKey = "ql:paused_queues"
	capacityKey     = "ql:capacity" // queue -> most jobs it may hold (beyond.lua)
)

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
