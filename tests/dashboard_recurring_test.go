package tests

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/qlessd/qlessd/dashboard"
)

// recurGet reads a recurring job as QLESS recur.get replies it.
func (d *dash) recurGet(jid string) map[string]any {
	d.t.Helper()
	var m map[string]any
	if s := d.qless("recur.get", jid); s != "" {
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			d.t.Fatalf("recur.get %s: %v", jid, err)
		}
	}
	return m
}

// recurScore is a recurring job's score in its queue's -recur set.
func (d *dash) recurScore(queue, jid string) float64 {
	d.t.Helper()
	s, err := d.rdb.ZScore(context.Background(), "ql:q:"+queue+"-recur", jid).Result()
	if err != nil {
		d.t.Fatalf("ZSCORE %s: %v", jid, err)
	}
	return s
}

// From the recurring job's page: a new interval takes effect (recur.get),
// pause keeps the job and moves its next run out of reach, run now spawns
// a job, resume brings the schedule back, delete removes it.
func TestDashboardRecurringActionsInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	d := startDash(t, dashboard.Options{Admin: true})
	d.qless("recur", "reports", "nightly", "BuildReport", `{"kind":"daily"}`, "interval", 3600, 600, "backlog", 2)
	dir := shotDir(t)
	page := d.srv.URL + "/jobs/nightly"
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible("#recur-update")); err != nil {
		t.Fatal(err)
	}
	if next, err := chromedp.Run(ctx, chromedp.Text("#recur-next")); err != nil || !strings.HasPrefix(next, "in 9m") && !strings.HasPrefix(next, "in 10m") {
		t.Fatalf("next run shows %q (%v)", next, err)
	}
	screenshot(t, ctx, dir, "recurring-job")
	before := d.recurScore("reports", "nightly")

	// A new interval, priority and data from the form.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(`#recur-update input[name="interval"]`, "7200"),
		chromedp.SetValue(`#recur-update input[name="priority"]`, "7"),
		chromedp.SetValue(`#recur-update textarea[name="data"]`, `{"kind":"hourly"}`),
		chromedp.Click(`#recur-update button`),
		chromedp.WaitVisible(".flash.ok")); err != nil {
		t.Fatal(err)
	}
	r := d.recurGet("nightly")
	if r["interval"] != 7200.0 || r["priority"] != 7.0 || r["data"] != `{"kind":"hourly"}` {
		t.Fatalf("after the update recur.get replies %v", r)
	}
	if got := d.recurScore("reports", "nightly"); got != before+3600 {
		t.Fatalf("next run %v, want %v (qless shifts it by the interval's change)", got, before+3600)
	}
	if shown, err := chromedp.Run(ctx, chromedp.Text("#recur-interval")); err != nil || shown != "7200 s" {
		t.Fatalf("the page shows the interval %q (%v)", shown, err)
	}

	// Pause: the job stays, its next run out of reach; a peek spawns nothing.
	if err := chromedp.Do(ctx, chromedp.Click("#recur-pause"), chromedp.WaitVisible("#recur-resume")); err != nil {
		t.Fatal(err)
	}
	if st, err := chromedp.Run(ctx, chromedp.Text("#recur-state")); err != nil || st != "paused" {
		t.Fatalf("after pause the page shows %q (%v)", st, err)
	}
	if got := d.recurScore("reports", "nightly"); got < 1e12 || d.recurGet("nightly") == nil {
		t.Fatalf("paused: score %v, recur.get %v", got, d.recurGet("nightly"))
	}
	later := time.Now().Add(48 * time.Hour).Unix()
	if err := d.rdb.Do(context.Background(), "QLESS", "peek", later, "reports", 10).Err(); err != nil {
		t.Fatal(err)
	}
	if n := d.qless("length", "reports"); n != "0" {
		t.Fatalf("a paused recurring job spawned %s jobs", n)
	}
	screenshot(t, ctx, dir, "recurring-job-paused")

	// Run now spawns one job, paused or not.
	if err := chromedp.Do(ctx, chromedp.Click("#recur-run"), chromedp.WaitVisible(".flash.ok")); err != nil {
		t.Fatal(err)
	}
	if msg, err := chromedp.Run(ctx, chromedp.Text(".flash.ok")); err != nil || !strings.Contains(msg, "spawned job nightly-1") {
		t.Fatalf("run now says %q (%v)", msg, err)
	}
	if st := d.state("nightly-1"); st != "waiting" {
		t.Fatalf("run now's job is %q", st)
	}
	if got := d.recurScore("reports", "nightly"); got < 1e12 {
		t.Fatalf("run now resumed the job: score %v", got)
	}

	// Resume: back on its schedule.
	if err := chromedp.Do(ctx, chromedp.Click("#recur-resume"), chromedp.WaitVisible("#recur-pause")); err != nil {
		t.Fatal(err)
	}
	// The pause's offset costs the score its last digits (10^12 + now is
	// held to about 0.1 ms).
	if got := d.recurScore("reports", "nightly"); math.Abs(got-(before+3600)) > 0.01 {
		t.Fatalf("resumed: next run %v, want %v", got, before+3600)
	}
	// The recurring page lists it with its next run and backlog.
	if err := chromedp.Do(ctx, chromedp.Navigate(d.srv.URL+"/recurring"), chromedp.WaitVisible("table")); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, dir, "recurring")

	// A refused update shows in place.
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible("#recur-update"),
		chromedp.SetValue(`#recur-update textarea[name="data"]`, `{not json`),
		chromedp.Click(`#recur-update button`), chromedp.WaitVisible("#refused")); err != nil {
		t.Fatal(err)
	}
	if msg, err := chromedp.Run(ctx, chromedp.Text("#refused")); err != nil || !strings.Contains(msg, "data must be JSON") {
		t.Fatalf("refused update says %q (%v)", msg, err)
	}

	// Delete, confirmed, goes to the queue's recurring tab.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void]("window.confirm = () => true"),
		chromedp.Click("#recur-delete"), chromedp.WaitVisible(".flash.ok")); err != nil {
		t.Fatal(err)
	}
	if d.recurGet("nightly") != nil {
		t.Fatal("the recurring job is still there after delete")
	}
	var loc string
	if loc, _ = chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc, "/queues/reports?state=recurring") {
		t.Fatalf("after delete the browser is at %s", loc)
	}
	t.Logf("screenshots in %s", dir)
}
