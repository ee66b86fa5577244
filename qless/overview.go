package qless

import (
	"math"
	"sort"
	"strconv"

	"github.com/qlessd/qlessd/store"
)

// JobState is a state QLESS queues counts a queue's jobs in.
type JobState int

const (
	StateWaiting JobState = iota
	StateRunning
	StateScheduled
	StateStalled
	StateDepends
	StateRecurring
	// StateThrottled counts the jobs waiting for a full throttle
	// (ql:q:<queue>-throttled), which QLESS queues names only when there
	// are some and /metrics and INFO always show.
	StateThrottled
	// StateRated counts the waiting jobs a pop would pass over for a rate
	// with no room (rate.lua); they are counted as waiting too. QLESS
	// queues names it "rated", only when there are some.
	StateRated
	NumJobStates
)

var jobStateNames = [NumJobStates]string{"waiting", "running", "scheduled", "stalled", "depends", "recurring", "throttled", "rated"}

// String is the state's name in QLESS queues' reply.
func (s JobState) String() string { return jobStateNames[s] }

// QueueJobs are one queue's jobs by state.
type QueueJobs struct {
	Queue string
	Jobs  [NumJobStates]int64
}

// FailedGroup is one failure group and how many jobs it holds.
type FailedGroup struct {
	Group string
	Jobs  int64
}

// Overview is what the qless keyspace holds at one moment, as QLESS
// queues, failed and workers would count it then, summed over the
// databases (a queue of the same name in two databases counts once, with
// the jobs of both).
type Overview struct {
	Queues  []QueueJobs   // by name
	Failed  []FailedGroup // by name
	Workers int64
}

// ReadOverview counts what the qless keyspace holds at now (unix seconds)
// without writing: where QLESS queues would first move the scheduled jobs
// that are due to waiting, and QLESS workers forget the workers past
// max-worker-age, it counts them as those calls would leave them. The
// transaction's selected database is left as it was.
func ReadOverview(tx *store.Tx, now float64) Overview {
	defer tx.Select(tx.Selected())
	queues, failed := map[string]*QueueJobs{}, map[string]int64{}
	var ov Overview
	for d := 0; d < tx.Databases(); d++ {
		tx.Select(d)
		for _, name := range zsetMembers(tx, queuesKey) {
			q := queues[name]
			if q == nil {
				q = &QueueJobs{Queue: name}
				queues[name] = q
			}
			countQueue(tx, name, now, &q.Jobs)
		}
		groups, _, _ := tx.SMembers(failuresKey)
		for _, g := range groups {
			n, _ := tx.ListLen(failureGroupKey(g))
			failed[g] += n
		}
		ov.Workers += countWorkers(tx, now)
	}
	for _, q := range queues {
		ov.Queues = append(ov.Queues, *q)
	}
	sort.Slice(ov.Queues, func(i, j int) bool { return ov.Queues[i].Queue < ov.Queues[j].Queue })
	for g, n := range failed {
		ov.Failed = append(ov.Failed, FailedGroup{g, n})
	}
	sort.Slice(ov.Failed, func(i, j int) bool { return ov.Failed[i].Group < ov.Failed[j].Group })
	return ov
}

// countQueue adds queue_counts' numbers for qname to jobs.
func countQueue(tx *store.Tx, qname string, now float64, jobs *[NumJobStates]int64) {
	prefix := queuePrefix(qname)
	all, due := zcount(tx, prefix+"-locks", now)
	jobs[StateStalled] += due
	jobs[StateRunning] += all - due
	all, due = zcount(tx, prefix+"-scheduled", now)
	jobs[StateScheduled] += all - due
	jobs[StateWaiting] += zlen(tx, prefix+"-work") + due
	jobs[StateDepends] += zlen(tx, prefix+"-depends")
	jobs[StateRecurring] += zlen(tx, prefix+"-recur")
	jobs[StateThrottled] += zlen(tx, queueKey(qname, "throttled"))
	jobs[StateRated] += rateHeld(tx, qname, now)
}

// zlen is ZCARD key (0 for a key of another type): no member is visited.
func zlen(tx *store.Tx, key string) int64 {
	z, err := tx.OpenZSet(key)
	if err != nil {
		return 0
	}
	defer z.Release()
	return z.Len()
}

// countWorkers is how many workers QLESS workers lists: those seen within
// max-worker-age.
func countWorkers(tx *store.Tx, now float64) int64 {
	age := 86400.0
	if v, ok, _ := tx.HGet(configKey, "max-worker-age"); ok {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			age = n
		}
	}
	all, old := zcount(tx, workersKey, now-age)
	return all - old
}

// zcount returns the size of the sorted set at key and how many of its
// members score from 0 to upTo, as ZCOUNT key 0 upTo (0 for a key of
// another type).
func zcount(tx *store.Tx, key string, upTo float64) (all, upto int64) {
	z, err := tx.OpenZSet(key)
	if err != nil {
		return 0, 0
	}
	defer z.Release()
	if z.Len() == 0 || math.IsNaN(upTo) {
		return z.Len(), 0
	}
	return z.Len(), z.CountByScore(store.ScoreBound{Value: 0}, store.ScoreBound{Value: upTo})
}

// zsetMembers returns the members of the sorted set at key.
func zsetMembers(tx *store.Tx, key string) []string {
	z, err := tx.OpenZSet(key)
	if err != nil {
		return nil
	}
	defer z.Release()
	var out []string
	z.Ascend(func(e store.Entry) bool {
		out = append(out, e.Member)
		return true
	})
	return out
}
