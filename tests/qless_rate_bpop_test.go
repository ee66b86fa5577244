package tests

import (
	"strings"
	"testing"
	"time"
)

// TestQlessRateWakesBPop: a bpop on a queue whose work is held back only
// by a rate (the queue's own, or one its job carries) is served when the
// window frees, with no write to wake it: the server looks again when
// the oldest start leaves the window.
func TestQlessRateWakesBPop(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	// Locks that outlast the guard below: a lock falling due would wake
	// the bpop too, and must not be what serves it.
	qlessDo(t, rdb, "config.set", "now", "heartbeat", "3600")
	cases := []struct {
		name  string
		setup func(qn string) // leaves qn-c waiting, held back by a rate
	}{
		{"queue rate", func(qn string) {
			qlessDo(t, rdb, "rate.set", "now", "ql:q:"+qn, "2", "1")
			for _, j := range []string{"a", "b", "c"} {
				qlessDo(t, rdb, "put", "now", "p", qn, qn+"-"+j, "K", "{}", "0")
			}
			if jids, _ := popped(t, qlessDo(t, rdb, "pop", "now", qn, "w0", "5")); strings.Join(jids, ",") != qn+"-a,"+qn+"-b" {
				t.Fatalf("pop under the rate took %v", jids)
			}
		}},
		{"job rate", func(qn string) {
			qlessDo(t, rdb, "rate.set", "now", "slow", "1", "1")
			qlessDo(t, rdb, "put", "now", "p", qn, qn+"-a", "K", "{}", "0", "rates", `["slow"]`)
			qlessDo(t, rdb, "pop", "now", qn, "w0", "1")
			qlessDo(t, rdb, "put", "now", "p", qn, qn+"-c", "K", "{}", "0", "rates", `["slow"]`)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qn := strings.ReplaceAll(tc.name, " ", "-")
			tc.setup(qn)
			// Waits with no timeout: only the window sliding on can serve
			// it (the guard below keeps a broken build from hanging the run).
			reply := startBPop(rdb, "w1", "1", "0", qn)
			select {
			case got := <-reply:
				if jids := poppedJids(t, got); len(jids) != 1 || jids[0] != qn+"-c" {
					t.Fatalf("bpop got %v, want %s-c", jids, qn)
				}
			case <-time.After(time.Minute):
				t.Fatal("bpop never woken by the window")
			}
			blockedClients(t, rdb, 0)
		})
	}
}
