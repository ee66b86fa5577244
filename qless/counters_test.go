package qless

import "testing"

func TestJobCountsByQueue(t *testing.T) {
	c := jobCounter{queues: map[string]*queueCounts{}}
	c.add("b", EventPut, 2)
	c.add("a", EventFailed, 1)
	c.add("b", EventPut, 3)
	if got := c.queues["b"][EventPut].Load(); got != 5 {
		t.Errorf("b put = %d, want 5", got)
	}
	if got := c.queues["a"][EventFailed].Load(); got != 1 {
		t.Errorf("a failed = %d, want 1", got)
	}
	for e, name := range []string{"put", "popped", "completed", "failed", "retried"} {
		if JobEvent(e).String() != name {
			t.Errorf("event %d is %q, want %q", e, JobEvent(e), name)
		}
	}
}

// BenchmarkJobCountsAdd is what counting costs a put, pop or complete.
func BenchmarkJobCountsAdd(b *testing.B) {
	c := jobCounter{queues: map[string]*queueCounts{}}
	queue := string([]byte("queue-name"))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.add(queue, EventPopped, 1)
		}
	})
}

// BenchmarkJobCountsAddSerial: as the command paths count, one at a time
// inside the store's write transaction.
func BenchmarkJobCountsAddSerial(b *testing.B) {
	c := jobCounter{queues: map[string]*queueCounts{}}
	queue := string([]byte("queue-name"))
	for b.Loop() {
		c.add(queue, EventPopped, 1)
	}
}
