package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{8 << 20, 64 << 20, 701},  // goal 8 MB * 8.01, just past the floor
		{32 << 20, 64 << 20, 101}, // half the floor: GOGC 100 already gets there
		{40 << 20, 64 << 20, 100}, // never below the default
		{200 << 20, 64 << 20, 100},
		{0, 64 << 20, 1501}, // before the first cycle: Go's 4 MB starting point
	} {
		if got := gcPercentFor(c.live, c.floor); got != c.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

// The floor is re-applied after every collection: with a tiny live heap
// GOGC climbs well past 100, and it stays in force across cycles.
func TestGCFloorRaisesGOGC(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(100)
	startGCFloor(256 << 20)
	// The finalizer goroutine re-applies the floor after each cycle, when
	// it gets to run: look (setting it back) until it has, three cycles on.
	var got int
	for cycle, deadline := 0, time.Now().Add(time.Minute); time.Now().Before(deadline); cycle++ {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		if got = debug.SetGCPercent(100); cycle >= 2 && got > 1000 {
			break
		}
		debug.SetGCPercent(got)
	}
	if got <= 1000 {
		t.Fatalf("GOGC %d after three cycles with a floor of 256 MB over a test-sized heap, want > 1000", got)
	}
}

func TestGCMinHeapFlagRefusesBadSizes(t *testing.T) {
	for _, v := range []string{"bogus", "-5mb", "12qb"} {
		if code := run([]string{"--gc-min-heap", v, "--dir", t.TempDir(), "--port", "0"}); code != 2 {
			t.Errorf("--gc-min-heap %q: exit code %d, want 2", v, code)
		}
	}
}
