package tests

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
)

// A running job whose lock expired wears the stalled badge wherever it is
// listed, and the queue's stalled tab lists it; a running job with a live
// lock keeps the running badge.
func TestDashboardStalledBadge(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{})
	// Popped an hour ago with qless's default 60 s heartbeat: the lock
	// expired long since, whatever the machine's load.
	past := time.Now().Add(-time.Hour).Unix()
	ctx := context.Background()
	for _, c := range [][]any{
		{"QLESS", "put", past, "producer", "sq", "jid-stale", "K", "{}", 0, "tags", `["st"]`},
		{"QLESS", "pop", past, "sq", "worker-old", 1},
	} {
		if err := d.rdb.Do(ctx, c...).Err(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	}
	// Another queue: a pop in sq would hand jid-stale to the new worker.
	d.qless("put", "producer", "sq2", "jid-fresh", "K", "{}", 0, "tags", `["st"]`)
	if got := d.qless("pop", "sq2", "worker-new", 1); !strings.Contains(got, "jid-fresh") {
		t.Fatalf("pop gave %s", got)
	}
	stalled := `<span class="state s-stalled">stalled</span>`
	running := `<span class="state s-running">running</span>`
	for _, c := range []struct {
		path       string
		want, dont []string
	}{
		{"/jobs/jid-stale", []string{stalled}, []string{running}},
		{"/jobs/jid-fresh", []string{running}, []string{stalled}},
		{"/queues/sq?state=stalled", []string{"jid-stale", stalled}, []string{"jid-fresh", running}},
		{"/queues/sq2?state=running", []string{"jid-fresh", running}, []string{"jid-stale", stalled}},
		{"/tags/st", []string{"jid-stale", "jid-fresh", stalled, running}, nil},
		{"/workers/worker-old", []string{"jid-stale", stalled}, []string{running}},
	} {
		code, body := d.get(c.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", c.path, code, body)
		}
		mustContain(t, c.path, body, c.want...)
		for _, s := range c.dont {
			if strings.Contains(body, s) {
				t.Fatalf("%s: %q should not be there:\n%s", c.path, s, body)
			}
		}
	}
	// The tab's count is qless's.
	_, body := d.get("/queues/sq")
	mustContain(t, "/queues/sq", body, `data-tab-count="stalled">1</span>`, `data-tab-count="running">0</span>`)
}
