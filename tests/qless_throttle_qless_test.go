package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// qlessDo returns a QLESS call's reply as text (arrays joined by commas).
func qlessDo(t *testing.T, rdb *redis.Client, args ...any) string {
	t.Helper()
	v, err := rdb.Do(context.Background(), append([]any{"QLESS"}, args...)...).Result()
	if err != nil && err != redis.Nil {
		t.Fatalf("QLESS %v: %v", args, err)
	}
	if list, ok := v.([]any); ok {
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = fmt.Sprint(e)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// popped is a pop reply's jobs: jid and the data's key.
func popped(t *testing.T, reply string) (jids, keys []string) {
	t.Helper()
	if reply == "{}" || reply == "[]" {
		return nil, nil
	}
	var jobs []struct{ Jid, Data string }
	if err := json.Unmarshal([]byte(reply), &jobs); err != nil {
		t.Fatalf("pop reply %q: %v", reply, err)
	}
	for _, j := range jobs {
		var d struct{ Key string }
		json.Unmarshal([]byte(j.Data), &d)
		jids, keys = append(jids, j.Jid), append(keys, d.Key)
	}
	return jids, keys
}

// TestQlessThrottleSkipsAndReturns: pop skips jobs whose throttle is full,
// taking the next in line, and a throttled job comes back to work when a
// lock is let go.
func TestQlessThrottleSkipsAndReturns(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: StartQlessd(t, "").Addr, Protocol: 2})
	defer rdb.Close()
	qlessDo(t, rdb, "throttle.set", "1", "t", "2")
	for i := 1; i <= 5; i++ {
		qlessDo(t, rdb, "put", i+1, "p", "q", fmt.Sprintf("t%d", i), "K", "{}", "0", "throttles", `["t"]`)
	}
	qlessDo(t, rdb, "put", 10, "p", "q", "free1", "K", "{}", "0")
	qlessDo(t, rdb, "put", 11, "p", "q", "free2", "K", "{}", "0")
	jids, _ := popped(t, qlessDo(t, rdb, "pop", 20, "q", "w", "10"))
	if strings.Join(jids, ",") != "t1,t2,free1,free2" {
		t.Fatalf("pop 10 took %v, want t1,t2,free1,free2", jids)
	}
	if got := qlessDo(t, rdb, "jobs", 20, "throttled", "q"); got != "t3,t4,t5" {
		t.Fatalf("throttled jobs %q", got)
	}
	if got := qlessDo(t, rdb, "throttle.pending", 20, "t"); got != "t3,t4,t5" {
		t.Fatalf("pending %q", got)
	}
	if jids, _ := popped(t, qlessDo(t, rdb, "pop", 21, "q", "w", "10")); len(jids) != 0 {
		t.Fatalf("pop with the throttle full took %v", jids)
	}
	qlessDo(t, rdb, "complete", 22, "t2", "w", "q", "{}")
	if got := qlessDo(t, rdb, "throttle.pending", 22, "t"); got != "t4,t5" {
		t.Fatalf("pending after a complete %q", got)
	}
	jids, _ = popped(t, qlessDo(t, rdb, "pop", 23, "q", "w", "10"))
	if strings.Join(jids, ",") != "t3" {
		t.Fatalf("pop after a complete took %v, want t3", jids)
	}
	if got := qlessDo(t, rdb, "throttle.locks", 23, "t"); got != "t1,t3" {
		t.Fatalf("locks %q", got)
	}
	// Raising the limit lets the rest go at once.
	qlessDo(t, rdb, "throttle.set", 24, "t", "10")
	jids, _ = popped(t, qlessDo(t, rdb, "pop", 25, "q", "w", "10"))
	if strings.Join(jids, ",") != "t4,t5" {
		t.Fatalf("pop after raising the limit took %v", jids)
	}
}

// TestQlessThrottleSerialSubQueue is the serial sub-queue per key (as
// Tarantool's utube): a throttle of 1 per key runs each key's jobs one at a
// time in the order put, while other keys' jobs are not held back.
func TestQlessThrottleSerialSubQueue(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: StartQlessd(t, "").Addr, Protocol: 2})
	defer rdb.Close()
	keys := []string{"user:42", "user:7", "user:9"}
	for _, k := range keys {
		qlessDo(t, rdb, "throttle.set", 1, k, "1")
	}
	var order []string // jids as put
	now := 10
	for i := 0; i < 4; i++ {
		for _, k := range keys {
			jid := fmt.Sprintf("%s-%d", k, i)
			data := fmt.Sprintf(`{"key":%q}`, k)
			qlessDo(t, rdb, "put", now, "p", "uq", jid, "K", data, "0", "throttles", fmt.Sprintf(`[%q]`, k))
			order = append(order, jid)
			now++
		}
	}
	qlessDo(t, rdb, "put", now, "p", "uq", "plain", "K", `{"key":"none"}`, "0")
	ran := map[string][]string{}
	for round := 0; ; round++ {
		now++
		jids, jobKeys := popped(t, qlessDo(t, rdb, "pop", now, "uq", "w", "100"))
		if len(jids) == 0 {
			break
		}
		seen := map[string]bool{}
		for i, jid := range jids {
			if k := jobKeys[i]; k != "none" && seen[k] {
				t.Fatalf("round %d: two jobs of %s at once: %v", round, k, jids)
			}
			seen[jobKeys[i]] = true
			ran[jobKeys[i]] = append(ran[jobKeys[i]], jid)
		}
		if round == 0 && len(jids) != len(keys)+1 {
			t.Fatalf("first pop took %v: every key's first job and the plain one should run", jids)
		}
		for _, jid := range jids {
			qlessDo(t, rdb, "complete", now, jid, "w", "uq", "{}")
		}
	}
	for _, k := range keys {
		want := []string{}
		for _, jid := range order {
			if strings.HasPrefix(jid, k+"-") {
				want = append(want, jid)
			}
		}
		if strings.Join(ran[k], ",") != strings.Join(want, ",") {
			t.Fatalf("%s ran %v, want %v", k, ran[k], want)
		}
	}
	if got := qlessDo(t, rdb, "queues", now, "uq"); !strings.Contains(got, `"waiting":0`) || strings.Contains(got, "throttled") {
		t.Fatalf("queue after all ran: %s", got)
	}
}

// TestQlessThrottleWakesBPop: a waiting bpop is served when a throttle
// frees a slot: a job waiting for the throttle goes back to the work set,
// and under the queue's own throttle the freed lock wakes it.
func TestQlessThrottleWakesBPop(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	cases := []struct {
		name, tid string          // tid: the throttle that holds qn-b back
		setup     func(qn string) // leaves job qn-a running and qn-b held back
	}{
		{"throttle", "bt", func(qn string) {
			qlessDo(t, rdb, "throttle.set", "now", "bt", "1")
			qlessDo(t, rdb, "put", "now", "p", qn, qn+"-a", "K", "{}", "0", "throttles", `["bt"]`)
			qlessDo(t, rdb, "pop", "now", qn, "w0", "1")
			qlessDo(t, rdb, "put", "now", "p", qn, qn+"-b", "K", "{}", "0", "throttles", `["bt"]`)
		}},
		{"queue throttle", "ql:q:queue-throttle", func(qn string) {
			// Both wait in the work set; the full queue throttle holds b there.
			qlessDo(t, rdb, "queue.throttle.set", "now", qn, "1")
			qlessDo(t, rdb, "put", "now", "p", qn, qn+"-a", "K", "{}", "0")
			qlessDo(t, rdb, "put", "now", "p", qn, qn+"-b", "K", "{}", "0")
			qlessDo(t, rdb, "pop", "now", qn, "w0", "1")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qn := strings.ReplaceAll(tc.name, " ", "-")
			tc.setup(qn)
			if got := qlessDo(t, rdb, "throttle.locks", "now", tc.tid); got != qn+"-a" {
				t.Fatalf("locks before the wait: %q", got)
			}
			// Waits with no timeout: only the freed slot can serve it (the
			// guard below just keeps a broken build from hanging the run).
			reply := startBPop(rdb, "w1", "1", "0", qn)
			blockedClients(t, rdb, 1)
			qlessDo(t, rdb, "complete", "now", qn+"-a", "w0", qn, "{}")
			select {
			case got := <-reply:
				if jids := poppedJids(t, got); len(jids) != 1 || jids[0] != qn+"-b" {
					t.Fatalf("bpop got %v, want %s-b", jids, qn)
				}
			case <-time.After(time.Minute):
				t.Fatal("bpop never woken by the freed slot")
			}
			blockedClients(t, rdb, 0)
		})
	}
}
