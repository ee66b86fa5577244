package store

import (
	"sync/atomic"
	"time"
)

// latencyHook passes the durations of the data file's slow operations to
// the server (LATENCY, the fsync histogram); the store's parts share one.
type latencyHook struct {
	fn atomic.Pointer[func(event string, d time.Duration)]
}

// since reports how long event took from start, when a hook is set.
func (h *latencyHook) since(event string, start time.Time) {
	if h == nil {
		return
	}
	if fn := h.fn.Load(); fn != nil {
		(*fn)(event, time.Since(start))
	}
}

// OnLatency has fn hear how long each of the data file's slow operations
// took: "fsync" (every fsync of the data file), "aof-write" (a write of
// committed records) and "aof-rewrite" (a whole rewrite). fn runs on the
// goroutine that did the operation, outside the store lock; it must be
// quick.
func (db *DB) OnLatency(fn func(event string, d time.Duration)) {
	db.latency.fn.Store(&fn)
}
