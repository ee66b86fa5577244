package qless

import (
	"sort"
	"sync"
	"sync/atomic"
)

// JobEvent is something that happens to jobs which qlessd counts per queue
// from its start: INFO's qless section and the Prometheus counters read
// the same counts.
type JobEvent int

const (
	EventPut       JobEvent = iota // put, requeued, spawned by a recurring job, or moved on by complete's next
	EventPopped                    // handed to a worker by pop
	EventCompleted                 // completed
	EventFailed                    // failed: by fail, or out of retries (retry, lost lock)
	EventRetried                   // back to its queue for another try: retry, lost lock
	NumJobEvents
)

var jobEventNames = [NumJobEvents]string{"put", "popped", "completed", "failed", "retried"}

// String is the event's name as the metrics label and INFO field use it.
func (e JobEvent) String() string { return jobEventNames[e] }

// queueCounts are one queue's counts, one atomic each: the paths that
// count run inside write transactions, readers at any time.
type queueCounts [NumJobEvents]atomic.Uint64

// jobCounter holds the counts of every queue that had an event. A queue
// is added once, under the write lock; counting takes the read lock only,
// whose holders do not wait for each other.
type jobCounter struct {
	mu     sync.RWMutex
	queues map[string]*queueCounts
}

// jobCounts is the process's count: one server runs per process.
var jobCounts = jobCounter{queues: map[string]*queueCounts{}}

func (c *jobCounter) add(queue string, e JobEvent, n uint64) {
	c.of(queue)[e].Add(n)
}

// of returns queue's counts, added on first use.
func (c *jobCounter) of(queue string) *queueCounts {
	c.mu.RLock()
	q := c.queues[queue]
	c.mu.RUnlock()
	if q == nil {
		c.mu.Lock()
		if q = c.queues[queue]; q == nil {
			q = new(queueCounts)
			c.queues[queue] = q
		}
		c.mu.Unlock()
	}
	return q
}

// QueueJobCounts are the counts of one queue since the process started.
type QueueJobCounts struct {
	Queue  string
	Counts [NumJobEvents]uint64
}

// JobCounts returns each queue's counts since the process started, by
// queue name.
func JobCounts() []QueueJobCounts {
	jobCounts.mu.RLock()
	out := make([]QueueJobCounts, 0, len(jobCounts.queues))
	for name, q := range jobCounts.queues {
		r := QueueJobCounts{Queue: name}
		for e := range r.Counts {
			r.Counts[e] = q[e].Load()
		}
		out = append(out, r)
	}
	jobCounts.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Queue < out[j].Queue })
	return out
}

// JobTotals returns the counts summed over queues.
func JobTotals() [NumJobEvents]uint64 {
	var t [NumJobEvents]uint64
	for _, q := range JobCounts() {
		for e, n := range q.Counts {
			t[e] += n
		}
	}
	return t
}
