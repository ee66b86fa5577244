package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcFloor keeps the collector's heap goal at or above a floor. Go's goal is
// twice the live heap, so a server holding a few megabytes of jobs collects
// every few megabytes allocated: about twenty times a second under load at
// concurrency 50, each cycle taking a P for its mark worker and stopping
// the world twice. Raising GOGC while the live heap is small spaces the
// cycles out; once the live heap passes half the floor GOGC is back at 100,
// so a large store pays nothing extra. The cost on a small store is
// resident memory up to the floor, and live data spread over more of the
// heap (README, Storage, has the figures).
type gcFloor struct {
	floor  uint64
	last   int // the GOGC set last
	sample []metrics.Sample
}

// defaultGOGC is Go's own GOGC, kept wherever the floor does not apply.
const defaultGOGC = 100

// sentinel is garbage from birth: its finalizer runs after the next cycle,
// which is when the live heap is known.
type sentinel struct{ g *gcFloor }

// startGCFloor does nothing when floor is 0 or GOGC is set, so an operator's
// own setting wins.
func startGCFloor(floor uint64) {
	if floor == 0 || os.Getenv("GOGC") != "" {
		return
	}
	g := &gcFloor{floor: floor, last: defaultGOGC,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	g.adjust()
	g.arm()
}

func (g *gcFloor) arm() {
	runtime.SetFinalizer(&sentinel{g}, func(s *sentinel) {
		s.g.adjust()
		s.g.arm()
	})
}

func (g *gcFloor) adjust() {
	metrics.Read(g.sample)
	live := uint64(0)
	if g.sample[0].Value.Kind() == metrics.KindUint64 {
		live = g.sample[0].Value.Uint64()
	}
	pct := gcPercentFor(live, g.floor)
	if pct != g.last {
		debug.SetGCPercent(pct)
		g.last = pct
	}
}

// gcPercentFor is the GOGC that puts the goal, live*(1+pct/100), at the
// floor, and never below Go's default.
func gcPercentFor(live, floor uint64) int {
	if live == 0 {
		// Before the first collection: Go's starting goal is 4 MB times
		// GOGC/100, so this puts that goal at the floor too.
		live = 4 << 20
	}
	if live >= floor {
		return defaultGOGC
	}
	pct := int((floor-live)*100/live) + 1
	return max(pct, defaultGOGC)
}
