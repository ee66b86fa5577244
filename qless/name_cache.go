package qless

import (
	"sync"
	"sync/atomic"
)

// nameCache holds what the fast paths derive from a queue's or a worker's
// name (key names, counters), made once per name rather than per call. It
// is read without a lock: the map is replaced whole when a name is added,
// and names are few next to calls. Past maxCachedNames entries a name's
// value is made per call, so a client naming ever new queues or workers
// cannot grow memory.
type nameCache[T any] struct {
	mu   sync.Mutex
	m    atomic.Pointer[map[string]*T]
	make func(name string) *T
}

const maxCachedNames = 4096

// of returns the value of name (as the call sent it: looking it up makes
// no string).
func (c *nameCache[T]) of(name []byte) *T {
	if m := c.m.Load(); m != nil {
		if v := (*m)[string(name)]; v != nil {
			return v
		}
	}
	return c.add(string(name))
}

// ofString is of for a name already held as a string.
func (c *nameCache[T]) ofString(name string) *T {
	if m := c.m.Load(); m != nil {
		if v := (*m)[name]; v != nil {
			return v
		}
	}
	return c.add(name)
}

func (c *nameCache[T]) add(name string) *T {
	c.mu.Lock()
	defer c.mu.Unlock()
	var old map[string]*T
	if m := c.m.Load(); m != nil {
		old = *m
		if v := old[name]; v != nil {
			return v
		}
	}
	v := c.make(name)
	if len(old) >= maxCachedNames {
		return v
	}
	m := make(map[string]*T, len(old)+1)
	for k, e := range old {
		m[k] = e
	}
	m[name] = v
	c.m.Store(&m)
	return v
}
