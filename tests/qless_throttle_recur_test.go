package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestQlessThrottleRecur: recur's throttles option, through the printed
// script on qlessd and on redis-server 7.0 (replies, events, keyspace
// alike): the errors, recur.get showing the throttles, spawned jobs
// carrying them and waiting while one is full, a recur again without them
// dropping them, and a queue's own throttle holding spawned jobs back as
// it holds put ones.
func TestQlessThrottleRecur(t *testing.T) {
	t.Parallel()
	bad := func(v string) throttleStep {
		return throttleStep{"recur", []string{"q", "r", "K", "{}", "interval", "60", "0", "throttles", v},
			`Recur(): Arg "throttles" not a JSON array of throttle ids: ` + v, ""}
	}
	runThrottleSteps(t, []throttleStep{
		bad(`{"a":1}`), bad(`[1]`), bad(`[""]`), bad(`nope`),
		{"recur", []string{"q", "r", "K", "{}", "interval", "60", "0", "throttles"}, "Odd number of additional args", ""},
		{"recur.get", []string{"r"}, "=(nil)", ""},
		{"throttle.set", []string{"tid", "1"}, "=(nil)", ""},
		{"recur", []string{"q", "r", "K", "{}", "interval", "60", "0", "priority", "2", "throttles", `["tid"]`}, "=r", ""},
		{"recur.get", []string{"r"}, `={"tags":{},"jid":"r","retries":0,"data":"{}","queue":"q","state":"recur",` +
			`"count":0,"throttles":["tid"],"interval":60,"klass":"K","backlog":0,"priority":2}`, ""},
		{"recur", []string{"q", "r0", "K", "{}", "interval", "60", "0", "throttles", `[]`}, "=r0", ""},
		{"recur.get", []string{"r0"}, "!throttles", ""},
		{"unrecur", []string{"r0"}, "=1", ""},
		{"recur.update", []string{"r", "throttles", `["x"]`}, `Recur(): Unrecognized option "throttles"`, ""},
		{"pop", []string{"q", "w", "5"}, "jids=r-1", "1700000000"},
		{"get", []string{"r-1"}, `"throttles":["tid"]`, ""},
		{"throttle.locks", []string{"tid"}, "=r-1", ""},
		// r-2 and r-3 come due while r-1 holds tid: they wait for it.
		{"pop", []string{"q", "w", "5"}, "jids=", "1700000120"},
		{"throttle.pending", []string{"tid"}, "=r-2,r-3", ""},
		{"jobs", []string{"throttled", "q"}, "=r-2,r-3", ""},
		{"get", []string{"r-2"}, `"state":"throttled"`, ""},
		{"complete", []string{"r-1", "w", "q", "{}"}, "=complete", "1700000121"},
		{"pop", []string{"q", "w", "5"}, "jids=r-2", "1700000122"},
		{"throttle.pending", []string{"tid"}, "=r-3", ""},
		// A recur again without throttles drops them for what it spawns.
		{"recur", []string{"q", "r", "K", "{}", "interval", "60", "0"}, "=r", "1700000122"},
		{"recur.get", []string{"r"}, "!throttles", ""},
		{"pop", []string{"q", "w", "5"}, "jids=r-4", "1700000123"},
		{"get", []string{"r-4"}, "!throttles", ""},
		{"get", []string{"r-3"}, `"state":"throttled"`, ""},
		// The queue's own throttle holds spawned jobs back as put ones.
		{"queue.throttle.set", []string{"q2", "1"}, "=(nil)", ""},
		{"recur", []string{"q2", "s", "K", "{}", "interval", "60", "0"}, "=s", "1700000200"},
		{"pop", []string{"q2", "w", "5"}, "jids=s-1", "1700000200"},
		{"pop", []string{"q2", "w", "5"}, "jids=", "1700000260"},
		{"jobs", []string{"throttled", "q2"}, "=s-2", ""},
		{"get", []string{"s-2"}, "!throttles", ""},
		{"complete", []string{"s-1", "w", "q2", "{}"}, "=complete", "1700000261"},
		{"pop", []string{"q2", "w", "5"}, "jids=s-2", "1700000262"},
	})
}

// TestQlessRecurThrottleOfOne: the jobs a recurring job with a throttle of
// 1 spawns run one at a time, in the order spawned, through QLESS (where
// pops, puts and completes have Go fast paths) with several workers.
func TestQlessRecurThrottleOfOne(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: StartQlessd(t, "").Addr, Protocol: 2})
	defer rdb.Close()
	const base = 1700000000
	qlessDo(t, rdb, "throttle.set", base, "one", "1")
	qlessDo(t, rdb, "recur", base, "sq", "r", "K", "{}", "interval", "10", "0", "throttles", `["one"]`)
	if got := qlessDo(t, rdb, "recur.get", base, "r"); !strings.Contains(got, `"throttles":["one"]`) {
		t.Fatalf("recur.get r = %s", got)
	}
	qlessDo(t, rdb, "put", base+1, "p", "sq", "free", "K", "{}", "0")
	const now = base + 100 // eleven spawns due, r-1 to r-11
	if jids, _ := popped(t, qlessDo(t, rdb, "pop", now, "sq", "w1", "5")); strings.Join(jids, ",") != "r-1,free" {
		t.Fatalf("first pop got %v, want r-1 and the job without throttles", jids)
	}
	qlessDo(t, rdb, "complete", now, "free", "w1", "sq", "{}")
	for i := 1; i <= 11; i++ {
		jid, worker := fmt.Sprintf("r-%d", i), fmt.Sprintf("w%d", i)
		if i > 1 {
			jids, _ := popped(t, qlessDo(t, rdb, "pop", now, "sq", worker, "5"))
			if len(jids) != 1 || jids[0] != jid {
				t.Fatalf("pop %d got %v, want %s alone", i, jids, jid)
			}
		}
		if jids, _ := popped(t, qlessDo(t, rdb, "pop", now, "sq", "other", "5")); len(jids) != 0 {
			t.Fatalf("while %s runs another worker got %v", jid, jids)
		}
		var counts struct{ Running int }
		json.Unmarshal([]byte(qlessDo(t, rdb, "queues", now, "sq")), &counts)
		if counts.Running != 1 {
			t.Fatalf("while %s runs %d jobs run", jid, counts.Running)
		}
		if locks := qlessDo(t, rdb, "throttle.locks", now, "one"); locks != jid {
			t.Fatalf("throttle one held by %q, want %s", locks, jid)
		}
		if got := qlessDo(t, rdb, "complete", now, jid, worker, "sq", "{}"); got != "complete" {
			t.Fatalf("complete %s: %s", jid, got)
		}
	}
	var left struct {
		Waiting, Running int
		Throttled        *int
	}
	json.Unmarshal([]byte(qlessDo(t, rdb, "queues", now, "sq")), &left)
	if left.Waiting != 0 || left.Running != 0 || left.Throttled != nil {
		t.Fatalf("after the eleven: %+v", left)
	}
}
