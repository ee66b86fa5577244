package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
)

// completeAt pops jid from queue and completes it at the given time.
func (d *dash) completeAt(queue, jid string, at int64) {
	d.t.Helper()
	d.qless("put", "producer", queue, jid, "K", "{}", 0)
	if got := d.qless("pop", queue, "worker-1", 1); !strings.Contains(got, jid) {
		d.t.Fatalf("pop %s did not give %s: %s", queue, jid, got)
	}
	err := d.rdb.Do(context.Background(), "QLESS", "complete", at, jid, "worker-1", queue, "{}").Err()
	if err != nil {
		d.t.Fatalf("complete %s at %d: %v", jid, at, err)
	}
}

// The completed page and API list completed jobs of every queue, newest
// first, paged.
func TestDashboardCompleted(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{})
	base := time.Now().Unix() + 60
	// Completion times run against the order of completing, so the list's
	// order can only come from the times.
	d.completeAt("q1", "done-a", base+30)
	d.completeAt("q2", "done-b", base+10)
	d.completeAt("q1", "done-c", base+20)
	d.qless("put", "producer", "q1", "still-waiting", "K", "{}", 0)

	code, body := d.get("/api/completed?limit=2")
	var page struct {
		Offset, Limit int
		Jobs          []dashboard.Job
	}
	if err := json.Unmarshal([]byte(body), &page); code != http.StatusOK || err != nil {
		t.Fatalf("/api/completed: %d %v\n%s", code, err, body)
	}
	if got := jids(page.Jobs); got != "done-a done-c" || page.Limit != 2 {
		t.Fatalf("/api/completed?limit=2 = %s (limit %d)", got, page.Limit)
	}
	if page.Jobs[0].State != "complete" {
		t.Fatalf("first completed job: %+v", page.Jobs[0])
	}
	_, body = d.get("/api/completed?offset=2&limit=2")
	json.Unmarshal([]byte(body), &page)
	if got := jids(page.Jobs); got != "done-b" {
		t.Fatalf("/api/completed?offset=2&limit=2 = %s", got)
	}

	code, body = d.get("/completed?limit=2")
	if code != http.StatusOK {
		t.Fatalf("/completed: %d\n%s", code, body)
	}
	mustContain(t, "/completed", body, `href="/completed"`, "done-a", "done-c", `href="/queues/q1"`, "?limit=2&amp;offset=2", "Next")
	if strings.Contains(body, "done-b") || strings.Contains(body, "still-waiting") {
		t.Fatalf("/completed?limit=2 shows more than its page:\n%s", body)
	}
	if a, c := strings.Index(body, "done-a"), strings.Index(body, "done-c"); a > c {
		t.Fatal("/completed lists done-c before the newer done-a")
	}
	_, body = d.get("/completed?offset=2&limit=2")
	mustContain(t, "/completed second page", body, "done-b", "Previous")
	if code, body := d.get("/api/completed?offset=x"); code != 400 || !strings.Contains(body, "offset must be") {
		t.Fatalf("/api/completed?offset=x: %d %s", code, body)
	}
}

func jids(jobs []dashboard.Job) string {
	s := make([]string, len(jobs))
	for i, j := range jobs {
		s[i] = j.JID
	}
	return fmt.Sprint(strings.Join(s, " "))
}
