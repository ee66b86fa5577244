package qless

import (
	"strconv"
	"testing"
)

func TestQueueNamesAreTheKeysTheLuaNames(t *testing.T) {
	n := namesOf([]byte("jobs"))
	if n != namesOfString("jobs") {
		t.Fatal("a queue's names were made twice")
	}
	for _, c := range [][2]string{
		{n.work, "ql:q:jobs-work"}, {n.locks, "ql:q:jobs-locks"}, {n.scheduled, "ql:q:jobs-scheduled"},
		{n.depends, "ql:q:jobs-depends"}, {n.recur, "ql:q:jobs-recur"}, {n.ttl, queueKey("jobs", "ttl")},
		{n.throttle, queueThrottleKey("jobs")}, {n.throttleLocks, "ql:th:ql:q:jobs-locks"},
		{n.throttlePending, "ql:th:ql:q:jobs-pending"},
		{string(n.heartbeatField), "jobs-heartbeat"}, {string(n.maxConcField), "jobs-max-concurrency"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
	if n.counts != jobCounts.of("jobs") {
		t.Error("the cached counts are not the queue's job counts")
	}
	if w := workerOf([]byte("w1")); w.name != "w1" || w.jobs != "ql:w:w1:jobs" {
		t.Errorf("worker names: %+v", w)
	}
}

// The statistics key follows the day: the one cached for yesterday is not
// reused today, and the day part is day_bin as Lua writes it.
func TestQueueStatKeyFollowsTheDay(t *testing.T) {
	n := namesOf([]byte("stats-q"))
	for _, now := range []float64{1763769599.5, 1763769600, 1763769600.25, 86399.999999, 0, 1e9 + 0.5} {
		day := now - (now - float64(int64(now/86400))*86400)
		want := "ql:s:wait:" + luaNumber(day) + ":stats-q"
		if got := n.statKey("wait", now); got != want {
			t.Errorf("statKey(wait, %v) = %q, want %q", now, got, want)
		}
		if got := n.statKey("run", now); got != "ql:s:run:"+luaNumber(day)+":stats-q" {
			t.Errorf("statKey(run, %v) = %q", now, got)
		}
	}
}

// Past maxCachedNames a name's value is still right, but not kept.
func TestNameCacheIsBounded(t *testing.T) {
	c := nameCache[workerNames]{make: func(w string) *workerNames { return &workerNames{name: w} }}
	for i := 0; i < maxCachedNames+10; i++ {
		if w := c.ofString(strconv.Itoa(i)); w.name != strconv.Itoa(i) {
			t.Fatalf("name %d: %q", i, w.name)
		}
	}
	if n := len(*c.m.Load()); n != maxCachedNames {
		t.Fatalf("%d names kept, want %d", n, maxCachedNames)
	}
	if w := c.of([]byte("late")); w.name != "late" {
		t.Fatalf("a name past the bound: %q", w.name)
	}
}
