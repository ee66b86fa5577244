// Package memback gives memory back to the operating system after a large
// request, reply or value has gone. Go returns freed memory to the system
// only slowly, and frees nothing before a collection finds it garbage,
// which, with the collector's goal at twice the live heap, may be minutes
// away once a 500 MB value has been and gone: the process would keep the
// peak for that long. Redis's allocator gives such memory back as it
// frees it.
package memback

import (
	"runtime/debug"
	"sync"
	"time"
)

// Threshold is the size from which a buffer or value that went away is
// worth a collection: below it, the collector's own pace gives memory back
// soon enough.
const Threshold = 32 << 20

// minGap is the least time between two releases: each costs a full
// collection, which a stream of large requests must not run back to back.
const minGap = time.Second

var (
	once  sync.Once
	nudge = make(chan struct{}, 1)
)

// Gone notes that size bytes went out of use (a request's or reply's
// buffer, a stored value): from Threshold on, memory is given back soon,
// by a goroutine of its own, so no caller waits on the collection.
func Gone(size int) {
	if size < Threshold {
		return
	}
	once.Do(func() { go run() })
	select {
	case nudge <- struct{}{}:
	default: // one is due already
	}
}

func run() {
	var last time.Time
	for range nudge {
		time.Sleep(max(settle, minGap-time.Since(last)))
		drain()
		debug.FreeOSMemory()
		// What the request still held a moment ago (a write's undo notes
		// keep a replaced value until its records are in the data file)
		// is garbage by the second pass.
		select {
		case <-time.After(followUp):
			drain()
			debug.FreeOSMemory()
		case <-nudge:
			select { // served by the next turn of the loop
			case nudge <- struct{}{}:
			default:
			}
		}
		last = time.Now()
	}
}

// settle lets the request that nudged finish (its reply sent, its buffers
// dropped) before the collection; followUp is when the second pass runs.
const (
	settle   = 100 * time.Millisecond
	followUp = 2 * time.Second
)

// drain takes the nudges that the coming release serves.
func drain() {
	select {
	case <-nudge:
	default:
	}
}
