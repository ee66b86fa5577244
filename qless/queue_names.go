package qless

import (
	"math"
	"sync/atomic"
)

// queueNames are one queue's key names, config fields and job counts,
// made once per queue (nameCache). The fast paths name a queue's keys on
// every call: building them took up to ten string allocations per pop or
// complete, and counting a job took the counter's lock and a map look-up.
type queueNames struct {
	name                            string
	work, locks, scheduled, depends string
	recur, ttl                      string
	throttle, throttleLocks         string // throttle.lua's hash and locks of the queue's own throttle
	throttlePending                 string
	rate                            string // rate.lua's hash of the queue's own rate
	heartbeatField, maxConcField    []byte // the queue's fields in ql:config; read only
	counts                          *queueCounts
	waitStat, runStat               atomic.Pointer[dayKey] // the last day's statistics keys
}

// dayKey is a statistics key (ql:s:wait:<day>:<queue>) with its day bin.
type dayKey struct {
	day float64
	key string
}

var queueNameCache = nameCache[queueNames]{make: newQueueNames}

// namesOf returns the names of queue q, as the call sent it.
func namesOf(q []byte) *queueNames { return queueNameCache.of(q) }

// namesOfString is namesOf for a name held as a string.
func namesOfString(q string) *queueNames { return queueNameCache.ofString(q) }

// workerNames are a worker's name and the key of its jobs.
type workerNames struct {
	name, jobs string
}

var workerNameCache = nameCache[workerNames]{make: func(w string) *workerNames {
	return &workerNames{name: w, jobs: workerJobsKey(w)}
}}

func workerOf(w []byte) *workerNames { return workerNameCache.of(w) }

func newQueueNames(q string) *queueNames {
	prefix := queuePrefix(q)
	th := queueThrottleKey(q)
	return &queueNames{
		name: q, work: prefix + "-work", locks: prefix + "-locks", scheduled: prefix + "-scheduled",
		depends: prefix + "-depends", recur: prefix + "-recur", ttl: prefix + "-ttl",
		throttle: th, throttleLocks: th + "-locks", throttlePending: th + "-pending",
		rate:           queueRateKey(q),
		heartbeatField: []byte(q + "-heartbeat"), maxConcField: []byte(q + "-max-concurrency"),
		counts: jobCounts.of(q),
	}
}

// statKey is the key of the queue's statistic (kind "wait" or "run") for
// the day bin of now.
func (n *queueNames) statKey(kind string, now float64) string {
	slot := &n.waitStat
	if kind == "run" {
		slot = &n.runStat
	}
	day := now - (now - math.Floor(now/86400)*86400) // day_bin (base.lua)
	if k := slot.Load(); k != nil && k.day == day {
		return k.key
	}
	k := &dayKey{day: day, key: statKey(kind, luaNumber(day), n.name)}
	slot.Store(k)
	return k.key
}
