package cronsched

import "sync"

// memoLimit bounds the schedules kept: a deployment has a handful of
// distinct expressions, and a client inventing new ones must not grow the
// process without end.
const memoLimit = 4096

// memo keeps parsed schedules by expression and timezone. A Schedule is
// never changed after Parse (Next only reads it), so one may be shared by
// every caller.
type memo struct {
	mu sync.Mutex
	m  map[memoKey]Schedule
}

type memoKey struct{ expr, tz string }

var parsed = memo{m: make(map[memoKey]Schedule)}

func (c *memo) get(expr, tz string) (Schedule, bool) {
	c.mu.Lock()
	s, ok := c.m[memoKey{expr, tz}]
	c.mu.Unlock()
	return s, ok
}

func (c *memo) put(expr, tz string, s Schedule) {
	c.mu.Lock()
	if len(c.m) >= memoLimit {
		clear(c.m)
	}
	c.m[memoKey{expr, tz}] = s
	c.mu.Unlock()
}
