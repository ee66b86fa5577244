package qless

import (
	"strings"
	"testing"
)

// rateStep is diffRun.step with rates in play now and then: the queues'
// own rates and named ones set and deleted, and puts and recurring jobs
// with the rates option, so the fast paths must hand every call that
// starts a rated job to the library.
func (r *diffRun) rateStep() {
	q, w := r.pick(diffQueues...), r.pick(diffWorkers...)
	switch n := r.rng.Intn(100); {
	case n < 3:
		r.call("rate.set", r.nowArg(), "ql:q:"+q, r.pick("1", "2", "5"), r.pick("1", "2.5", "10"))
	case n < 6:
		r.call("rate.set", r.nowArg(), r.pick("r1", "r2"), r.pick("1", "2"), r.pick("1", "3"))
	case n < 8:
		r.call("rate.delete", r.nowArg(), r.pick("r1", "r2", "ql:q:"+q))
	case n < 9:
		r.call("rate.get", r.nowArg(), r.pick("r1", "r2", "ql:q:"+q))
	case n < 20:
		r.call("put", r.nowArg(), w, q, r.jid(), "K", "{}", r.pick("0", "0", "5"),
			"rates", r.pick(`["r1"]`, `["r2"]`, `["r1","r2"]`, `[]`))
	case n < 22:
		// One queue only, so pops of the others keep their fast path.
		r.call("recur", r.nowArg(), diffQueues[0], r.pick("r1", "r2"), "K", "{}", "interval", r.pick("2", "30"), "0",
			"rates", r.pick(`["r1"]`, `["r2"]`, `[]`))
	case n < 23:
		r.call("unrecur", r.nowArg(), r.pick("r1", "r2"))
	case n < 25:
		r.call("queues", r.nowArg())
	default:
		r.step()
	}
}

// TestFastPathsMatchLuaRated is TestFastPathsMatchLua with rates in play:
// replies, events and keyspaces must still be the same.
func TestFastPathsMatchLuaRated(t *testing.T) {
	runs := 15
	if testing.Short() {
		runs = 3
	}
	started := 0
	taken := diffRuns(t, runs, 400, (*diffRun).rateStep, func(keyspace string) {
		if strings.Contains(keyspace, "-starts") {
			started++
		}
	})
	if started == 0 {
		t.Error("no run ended with starts recorded under a rate")
	}
	t.Logf("fast-path calls taken: %v", taken)
	for _, fn := range []string{"put", "pop", "complete"} {
		if taken[fn] == 0 {
			t.Errorf("no %s call took its fast path", fn)
		}
	}
}
