package qless

// qless's key names, as qless-core's scripts spell them.
const (
	configKey       = "ql:config"
	pausedQueuesKey = "ql:paused_queues"
)

// queueKey is one of a queue's sets: work, locks, scheduled, depends,
// recur.
func queueKey(queue, kind string) string { return "ql:q:" + queue + "-" + kind }
