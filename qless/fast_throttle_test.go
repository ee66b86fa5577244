package qless

import (
	"math/rand"
	"strings"
	"testing"
)

// throttleStep is diffRun.step with throttles in play now and then: the
// queues' own throttles and named ones set, raised and deleted, puts with
// the throttles option, and throttle.release, so the fast paths must hand
// every call that touches a throttle to the library.
func (r *diffRun) throttleStep() {
	q, w := r.pick(diffQueues...), r.pick(diffWorkers...)
	switch n := r.rng.Intn(100); {
	case n < 4:
		r.call("queue.throttle.set", r.nowArg(), q, r.pick("0", "1", "2", "5"))
	case n < 7:
		r.call("throttle.set", r.nowArg(), r.pick("t1", "t2"), r.pick("0", "1", "2"))
	case n < 9:
		r.call("throttle.delete", r.nowArg(), r.pick("t1", "t2", "ql:q:"+q))
	case n < 10:
		r.call("throttle.release", r.nowArg(), r.pick("t1", "t2", "ql:q:"+q), r.jid())
	case n < 22:
		r.call("put", r.nowArg(), w, q, r.jid(), "K", "{}", r.pick("0", "0", "5"),
			"throttles", r.pick(`["t1"]`, `["t2"]`, `["t1","t2"]`, `[]`))
	default:
		r.step()
	}
}

// TestFastPathsMatchLuaThrottled is TestFastPathsMatchLua with throttles
// in play: replies, events and keyspaces must still be the same.
func TestFastPathsMatchLuaThrottled(t *testing.T) {
	runs, steps := 15, 400
	if testing.Short() {
		runs = 3
	}
	taken, held := map[string]int{}, 0
	fastTaken = func(fn string) { taken[fn]++ }
	defer func() { fastTaken = nil }()
	for seed := 1; seed <= runs; seed++ {
		r := &diffRun{t: t, rng: rand.New(rand.NewSource(int64(seed))),
			fast: newDiffSide(t, true), slow: newDiffSide(t, false), now: 1763790000,
			running: map[string][2]string{}}
		for i := 0; i < steps; i++ {
			r.throttleStep()
		}
		if a, b := r.fast.dump(t), r.slow.dump(t); a != b {
			t.Fatalf("seed %d: keyspaces differ\nfast:\n%s\nlua:\n%s", seed, a, b)
		} else if strings.Contains(a, "-throttled") && strings.Contains(a, "-pending") {
			held++
		}
	}
	if held == 0 {
		t.Error("no run ended with jobs waiting for a throttle")
	}
	t.Logf("fast-path calls taken: %v", taken)
	for _, fn := range []string{"put", "pop", "complete"} {
		if taken[fn] == 0 {
			t.Errorf("no %s call took its fast path", fn)
		}
	}
}
