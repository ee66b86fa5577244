package qless

import (
	"strings"
	"testing"
)

// throttleStep is diffRun.step with throttles in play now and then: the
// queues' own throttles and named ones set, raised and deleted, puts and
// recurring jobs with the throttles option, and throttle.release, so the
// fast paths must hand every call that touches a throttle to the library.
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
	case n < 24:
		// One queue only, so pops of the others keep their fast path.
		r.call("recur", r.nowArg(), diffQueues[0], r.pick("r1", "r2"), "K", "{}", "interval", r.pick("2", "30"), "0",
			"throttles", r.pick(`["t1"]`, `["t2"]`, `[]`))
	case n < 25:
		r.call("unrecur", r.nowArg(), r.pick("r1", "r2"))
	default:
		r.step()
	}
}

// TestFastPathsMatchLuaThrottled is TestFastPathsMatchLua with throttles
// in play: replies, events and keyspaces must still be the same.
func TestFastPathsMatchLuaThrottled(t *testing.T) {
	runs := 15
	if testing.Short() {
		runs = 3
	}
	held := 0
	taken := diffRuns(t, runs, 400, (*diffRun).throttleStep, func(keyspace string) {
		if strings.Contains(keyspace, "-throttled") && strings.Contains(keyspace, "-pending") {
			held++
		}
	})
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
