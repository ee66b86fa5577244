package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/qlessd/qlessd/dashboard"
)

// browser starts headless Chromium (Debian's chromium package; .ci/run
// installs it) with extra options and returns a tab's context, ended with
// the test.
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): browser tests skipped")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true))
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	// A whole test's pages share this deadline: several browser tests run
	// at once, each with a Chromium, and on a loaded 2-core machine (load
	// average 29-40) 50 s ran out; it still ends a test chromium hangs on.
	ctx, cancelTime := context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	return ctx
}

// shotDir is where screenshots go: $DASHBOARD_SCREENSHOTS, else the
// test's own temporary directory.
func shotDir(t *testing.T) string {
	if dir := os.Getenv("DASHBOARD_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// domCounts reads the overview's queue table as the browser shows it.
const domCounts = `(() => {
  const out = {};
  document.querySelectorAll('#queues tr[data-queue]').forEach(tr => {
    const row = {};
    tr.querySelectorAll('[data-count]').forEach(a => { row[a.dataset.count] = Number(a.textContent.replace(/,/g, '')); });
    row.paused = !!tr.querySelector('.s-paused');
    out[tr.dataset.queue] = row;
  });
  return JSON.stringify(out);
})()`

func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	d := startDash(t, dashboard.Options{Admin: true})
	seedDash(d)
	for i := 0; i < 12; i++ {
		d.qless("put", "producer", "emails", fmt.Sprintf("more-%d", i), "SendEmail", `{"n":`+fmt.Sprint(i)+`}`, 0)
	}
	d.qless("pause", "reports")
	dir := shotDir(t)
	base := d.srv.URL

	// The overview shows the counts QLESS queues replies.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible("#queues")); err != nil {
		t.Fatal(err)
	}
	shown := browserCounts(t, ctx)
	if want := qlessCounts(t, d); shown != want {
		t.Fatalf("overview shows %s\nQLESS queues: %s", shown, want)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#live.on")); err != nil {
		t.Fatal("the overview did not go live: ", err)
	}
	screenshot(t, ctx, dir, "overview")

	// Another client's put shows without reloading: a new queue row and
	// the event.
	d.qless("put", "producer", "brand-new", "jid-live", "K", "{}", 0)
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(`#queues tr[data-queue="brand-new"]`),
		chromedp.WaitVisible(`#events a[href="/jobs/jid-live"]`)); err != nil {
		t.Fatal("the overview did not show the put live: ", err)
	}
	if shown, want := browserCounts(t, ctx), qlessCounts(t, d); shown != want {
		t.Fatalf("after the put the overview shows %s\nQLESS queues: %s", shown, want)
	}
	screenshot(t, ctx, dir, "overview-live")

	// A failed job's retry button puts it back, waiting.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/jobs/jid-failed"), chromedp.WaitVisible("#retry")); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, dir, "job-failed")
	if err := chromedp.Do(ctx, chromedp.Click("#retry"), chromedp.WaitVisible(".flash.ok")); err != nil {
		t.Fatal(err)
	}
	state, err := chromedp.Run(ctx, chromedp.Text("#job-state"))
	if err != nil || state != "waiting" || d.state("jid-failed") != "waiting" {
		t.Fatalf("after retry the page shows %q (%v), qless says %q", state, err, d.state("jid-failed"))
	}
	screenshot(t, ctx, dir, "job-retried")

	d.failJob("invoices", "jid-failed-2", `{"invoice":42}`, "smtp-timeout", "server did not answer\nTraceback:\n  at send (mail.py:3)")
	for _, p := range []struct{ name, path, ready string }{
		{"queue", "/queues/emails", ".tabs"},
		{"failed", "/failed", "#failed-groups"},
		{"failed-group", "/failed/smtp-timeout", ".failed-job"},
		{"workers", "/workers", "table"},
		{"worker", "/workers/worker-7", "table"},
		{"tags", "/tags", ".tag-cloud"},
		{"tag", "/tags/vip", "table"},
		{"tracked", "/tracked", "table"},
		{"recurring", "/recurring", "table"},
		{"config", "/config", "table"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+p.path), chromedp.WaitVisible(p.ready)); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		screenshot(t, ctx, dir, p.name)
	}

	// A Python traceback's card leads with its exception line; the
	// expander holds the whole traceback.
	d.failJob("mail", "jid-py", `{}`, "mail-SMTPTimeout", pyTraceback)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/failed/mail-SMTPTimeout"), chromedp.WaitVisible(".failure-msg")); err != nil {
		t.Fatal(err)
	}
	if line, err := chromedp.Run(ctx, chromedp.Text(".failure-msg")); err != nil || line != "mail.SMTPTimeout: server did not answer in 30s" {
		t.Fatalf("the traceback's card shows %q (%v)", line, err)
	}
	screenshot(t, ctx, dir, "failed-traceback")
	if err := chromedp.Do(ctx, chromedp.Click(".failure details summary"), chromedp.WaitVisible("pre.trace")); err != nil {
		t.Fatal(err)
	}
	if trace, err := chromedp.Run(ctx, chromedp.Text("pre.trace")); err != nil || !strings.Contains(trace, `File "/srv/app/mail.py", line 12, in send`) {
		t.Fatalf("the expander shows %q (%v)", trace, err)
	}
	screenshot(t, ctx, dir, "failed-traceback-open")

	// A job whose lock expired (popped an hour ago) wears a stalled badge
	// of another colour than a running job's.
	past := time.Now().Add(-time.Hour).Unix()
	for _, c := range [][]any{{"QLESS", "put", past, "p", "stale-q", "jid-stale", "K", "{}", 0}, {"QLESS", "pop", past, "stale-q", "w-old", 1}} {
		if err := d.rdb.Do(context.Background(), c...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// On a loaded machine the steps above can outlast jid-run's lock
	// (60 s): its worker heartbeats, as a live worker would.
	d.qless("heartbeat", "jid-run", "worker-7", "{}")
	const badge = `(() => { const b = document.querySelector('#job-state .state');
  return b.textContent + ' ' + getComputedStyle(b).backgroundColor; })()`
	var badges []string
	for _, jid := range []string{"jid-stale", "jid-run"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+"/jobs/"+jid), chromedp.WaitVisible("#job-state")); err != nil {
			t.Fatal(err)
		}
		b, err := chromedp.Run(ctx, chromedp.Evaluate[string](badge))
		if err != nil {
			t.Fatal(err)
		}
		badges = append(badges, b)
		screenshot(t, ctx, dir, "job-"+jid)
	}
	if !strings.HasPrefix(badges[0], "stalled ") || !strings.HasPrefix(badges[1], "running ") ||
		strings.TrimPrefix(badges[0], "stalled ") == strings.TrimPrefix(badges[1], "running ") {
		t.Fatalf("badges: stalled job %q, running job %q", badges[0], badges[1])
	}

	// A completed job is on the completed page, newest first.
	d.qless("put", "producer", "done-q", "jid-done", "K", "{}", 0)
	d.qless("pop", "done-q", "worker-9", 1)
	d.qless("complete", "jid-done", "worker-9", "done-q", "{}")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/completed"), chromedp.WaitVisible(`a[href="/jobs/jid-done"]`)); err != nil {
		t.Fatal("the completed page does not list jid-done: ", err)
	}
	screenshot(t, ctx, dir, "completed")

	// Cancelling a job another depends on is refused on the page the
	// user was on, naming the dependent with a link.
	d.qless("put", "producer", "deps-q", "jid-parent", "K", "{}", 0)
	d.qless("put", "producer", "deps-q", "jid-kid", "K", "{}", 0, "depends", `["jid-parent"]`)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/jobs/jid-parent"), chromedp.WaitVisible("#cancel")); err != nil {
		t.Fatal(err)
	}
	// The user answers the page's "Cancel job ...?" with OK.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#cancel"), chromedp.WaitVisible("#refused")); err != nil {
		t.Fatal("no refusal shown after cancelling a job with a dependent: ", err)
	}
	refused, err := chromedp.Run(ctx, chromedp.Text("#refused"))
	if err != nil || !strings.Contains(refused, "jid-kid") {
		t.Fatalf("the refusal reads %q (%v), want it to name jid-kid", refused, err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`)); err != nil || loc != "/jobs/jid-parent" {
		t.Fatalf("after the refused cancel the browser is at %q (%v), want the job's page", loc, err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`#refused a[href="/jobs/jid-kid"]`)); err != nil {
		t.Fatal("the refusal does not link the dependent: ", err)
	}
	if d.state("jid-parent") != "waiting" {
		t.Fatalf("the refused cancel changed jid-parent to %q", d.state("jid-parent"))
	}
	screenshot(t, ctx, dir, "refused-cancel")
	t.Logf("screenshots in %s", dir)
}

func browserCounts(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](domCounts))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	json.Unmarshal([]byte(s), &m)
	return canonical(m)
}

func qlessCounts(t *testing.T, d *dash) string {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal([]byte(d.qless("queues")), &list); err != nil {
		t.Fatal(err)
	}
	m := map[string]map[string]any{}
	for _, q := range list {
		name := q["name"].(string)
		delete(q, "name")
		if q["throttled"] == nil {
			q["throttled"] = 0 // named only when there are some; the overview always shows it
		}
		m[name] = q
	}
	return canonical(m)
}

// canonical prints queue -> field -> value with keys sorted and numbers
// as JSON numbers.
func canonical(m map[string]map[string]any) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := ""
	for _, n := range names {
		b, _ := json.Marshal(m[n])
		out += n + "=" + string(b) + " "
	}
	return out
}
