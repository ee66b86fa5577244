package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"
)

// qlessCall runs QLESS fn now args... and returns the reply as text.
func qlessCall(t *testing.T, rdb *redis.Client, fn string, args ...any) string {
	t.Helper()
	v, err := rdb.Do(context.Background(), append([]any{"QLESS", fn, "now"}, args...)...).Result()
	if err != nil && err != redis.Nil {
		t.Fatalf("QLESS %s %v: %v", fn, args, err)
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// httpGet fetches base+path and returns the body, failing on any status
// but 200.
func httpGet(t *testing.T, base, path string) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return string(b)
}

// throttledCount is what QLESS queues, /metrics and INFO qless say of the
// jobs of queue mail waiting for a throttle.
func throttledCount(t *testing.T, rdb *redis.Client, base string) (queues, metric float64, info string) {
	t.Helper()
	var counts map[string]any
	if err := json.Unmarshal([]byte(qlessCall(t, rdb, "queues", "mail")), &counts); err != nil {
		t.Fatal(err)
	}
	queues, _ = counts["throttled"].(float64) // named only when there are some
	metric = series(scrape(t, base), "qlessd_queue_jobs")["queue=mail,state=throttled"]
	info = infoField(rdb.Info(context.Background(), "qless").Val(), "jobs_throttled")
	return queues, metric, info
}

// A queue with jobs held by a full throttle shows them in its throttled
// tab with the throttle; /metrics, INFO qless and the API count them; the
// throttles page lists the throttle, shows a refused maximum in place, and
// a maximum set there takes effect and lets the waiting jobs go.
func TestDashboardThrottlesInBrowser(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	dir := shotDir(t)

	qlessCall(t, rdb, "throttle.set", "smtp", 1, 0)
	for i := 1; i <= 3; i++ {
		qlessCall(t, rdb, "put", "producer", "mail", fmt.Sprintf("m%d", i), "SendMail", "{}", 0, "throttles", `["smtp"]`)
	}
	if got := qlessCall(t, rdb, "pop", "mail", "worker-1", 10); !strings.Contains(got, `"jid":"m1"`) || strings.Contains(got, `"m2"`) {
		t.Fatalf("pop with a throttle of 1: %s", got)
	}
	if got := qlessCall(t, rdb, "throttle.pending", "smtp"); got != `["m2","m3"]` {
		t.Fatalf("throttle.pending: %s", got)
	}

	// The browser's deadline starts once the jobs are in place.
	ctx := browser(t)

	// The throttled tab lists both held jobs with the throttle holding each.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/queues/mail?state=throttled"), chromedp.WaitVisible("#throttled-jobs")); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(Array.from(
  document.querySelectorAll('#throttled-jobs tr[data-jid]'), tr => tr.dataset.jid + ':' + tr.querySelector('[data-throttle]').textContent.trim()))`))
	if err != nil || rows != `["m2:smtp","m3:smtp"]` {
		t.Fatalf("throttled tab rows %s (%v)", rows, err)
	}
	tab, err := chromedp.Run(ctx, chromedp.Text(`[data-tab-count="throttled"]`))
	if err != nil || tab != "2" {
		t.Fatalf("throttled tab count %q (%v)", tab, err)
	}
	screenshot(t, ctx, dir, "queue-throttled")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/jobs/m2"), chromedp.WaitVisible("#job-throttles")); err != nil {
		t.Fatal(err)
	}
	if got, err := chromedp.Run(ctx, chromedp.Text("#job-throttles")); err != nil || got != "smtp waiting for smtp" {
		t.Fatalf("job page throttles %q (%v)", got, err)
	}
	screenshot(t, ctx, dir, "job-throttled")

	// The same count in QLESS queues, /metrics and INFO qless; the API
	// names the throttle too.
	if qc, metric, info := throttledCount(t, rdb, base); qc != 2 || metric != 2 || info != "2" {
		t.Fatalf("throttled jobs: QLESS queues %v, qlessd_queue_jobs %v, INFO jobs_throttled %q", qc, metric, info)
	}
	var api struct {
		Total int64
		Jobs  []struct {
			JID, State string
			WaitingFor string `json:"waiting_for"`
		}
	}
	body := httpGet(t, base, "/api/queues/mail/jobs?state=throttled")
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatal(err)
	}
	if api.Total != 2 || len(api.Jobs) != 2 || api.Jobs[0].JID != "m2" || api.Jobs[0].WaitingFor != "smtp" || api.Jobs[1].State != "throttled" {
		t.Fatalf("API throttled jobs: %s", body)
	}

	// The throttles page lists the throttle: maximum 1, m1 holding, m2 and
	// m3 waiting.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/throttles"), chromedp.WaitVisible(`tr[data-throttle="smtp"]`)); err != nil {
		t.Fatal(err)
	}
	const row = `(() => { const tr = document.querySelector('tr[data-throttle="smtp"]');
  return ['maximum', 'locks', 'pending', 'waiting'].map(f => tr.querySelector('[data-field="' + f + '"]').textContent.trim().replace(/\s+/g, ' ')).join('|'); })()`
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](row)); err != nil || got != "1|1 full|2|m2 m3" {
		t.Fatalf("throttles page row %q (%v)", got, err)
	}
	screenshot(t, ctx, dir, "throttles")

	// A maximum qless refuses is shown in place, on the throttles page.
	const input = `tr[data-throttle="smtp"] input[name="maximum"]`
	if err := chromedp.Do(ctx, chromedp.SetValue(input, "-1"), chromedp.Click(`tr[data-throttle="smtp"] button`),
		chromedp.WaitVisible("#refused")); err != nil {
		t.Fatal(err)
	}
	refused, _ := chromedp.Run(ctx, chromedp.Text("#refused"))
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(refused, `Arg "max" not a whole number`) || !strings.HasPrefix(loc, base+"/throttles?") {
		t.Fatalf("refused maximum: %q at %s", refused, loc)
	}
	if got := qlessCall(t, rdb, "throttle.get", "smtp"); !strings.Contains(got, `"maximum":1`) {
		t.Fatalf("after a refused maximum throttle.get says %s", got)
	}
	screenshot(t, ctx, dir, "throttles-refused")

	// Maximum 3 takes effect and lets m2 and m3 back to work.
	if err := chromedp.Do(ctx, chromedp.SetValue(input, "3"), chromedp.Click(`tr[data-throttle="smtp"] button`),
		chromedp.WaitVisible(".flash.ok")); err != nil {
		t.Fatal(err)
	}
	if got := qlessCall(t, rdb, "throttle.get", "smtp"); !strings.Contains(got, `"maximum":3`) {
		t.Fatalf("after setting 3 throttle.get says %s", got)
	}
	for _, jid := range []string{"m2", "m3"} {
		if got, _ := jobState(t, rdb, jid); got != "waiting" {
			t.Fatalf("%s is %q after the maximum went up", jid, got)
		}
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](row)); err != nil || got != "3|1|0|none" {
		t.Fatalf("throttles page row after maximum 3: %q (%v)", got, err)
	}
	screenshot(t, ctx, dir, "throttles-raised")
	if qc, metric, info := throttledCount(t, rdb, base); qc != 0 || metric != 0 || info != "0" {
		t.Fatalf("after the maximum went up: QLESS queues %v, qlessd_queue_jobs %v, INFO jobs_throttled %q", qc, metric, info)
	}
	if got := qlessCall(t, rdb, "pop", "mail", "worker-2", 10); !strings.Contains(got, `"m2"`) || !strings.Contains(got, `"m3"`) {
		t.Fatalf("pop after the maximum went up: %s", got)
	}
	t.Logf("screenshots in %s", dir)
}

// The throttles page offers to set a maximum only to a dashboard user
// that may run QLESS throttle.set, and refuses the POST of one that may
// not; a queue's own throttle is listed as the queue's.
func TestDashboardThrottleMaxACL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "users.acl")
	writeACLFile(t, file, "user default on nopass ~* &* +@all\nuser watcher on ~* +@read +@qless-read\n")
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", "--aclfile", file, "--http-user", "watcher", "--http-admin", "yes")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	qlessCall(t, rdb, "queue.throttle.set", "reports", 1)
	qlessCall(t, rdb, "put", "p", "reports", "r1", "K", "{}", 0)
	qlessCall(t, rdb, "pop", "reports", "w", 1)

	page := httpGet(t, base, "/throttles")
	mustContain(t, "throttles page", page, `data-throttle="ql:q:reports"`, `<a href="/queues/reports">reports</a>`)
	if strings.Contains(page, "/api/throttles/") {
		t.Fatalf("a user without throttle.set is offered the maximum form:\n%s", page)
	}
	var tok struct{ Token string }
	if err := json.Unmarshal([]byte(httpGet(t, base, "/api/csrf")), &tok); err != nil {
		t.Fatal(err)
	}
	post := func() (int, string) {
		resp, err := http.PostForm(base+"/api/throttles/ql:q:reports/maximum", url.Values{"csrf": {tok.Token}, "maximum": {"5"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(); code != http.StatusForbidden || !strings.Contains(body, "watcher") {
		t.Fatalf("POST maximum without throttle.set: %d %s", code, body)
	}
	if err := rdb.Do(ctx, "ACL", "SETUSER", "watcher", "+qless|throttle.set").Err(); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "throttles page with throttle.set", httpGet(t, base, "/throttles"), `action="/api/throttles/ql:q:reports/maximum"`)
	if code, body := post(); code != http.StatusOK || !strings.Contains(body, "set the maximum of throttle ql:q:reports to 5") {
		t.Fatalf("POST maximum with throttle.set: %d %s", code, body)
	}
	if got := qlessCall(t, rdb, "queue.throttle.get", "reports"); !strings.Contains(got, `"maximum":5`) {
		t.Fatalf("queue.throttle.get: %s", got)
	}
}

// The throttles list is found by SCAN from the ql:t keys on: it finds
// every throttle among many tag keys, and its SCAN calls do not walk the
// job keys (ql:j:...) before them.
func TestDashboardThrottlesScan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	const jobs = 3000 // 6,000 job keys; 1,500 tag keys (ql:t:<tag>) beside the throttles'
	pipe := rdb.Pipeline()
	for i := 0; i < jobs; i++ {
		args := []any{"QLESS", "put", "now", "p", "bulk", fmt.Sprintf("job-%d", i), "K", "{}", 0}
		if i%2 == 0 {
			args = append(args, "tags", fmt.Sprintf(`["tag-%d"]`, i))
		}
		pipe.Do(ctx, args...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	qlessCall(t, rdb, "throttle.set", "a-first", 4, 0)
	qlessCall(t, rdb, "queue.throttle.set", "bulk", 2)
	// zz-last has locks and no maximum: a job put with it holds it.
	qlessCall(t, rdb, "put", "p", "other", "holder", "K", "{}", 0, "throttles", `["zz-last"]`)
	qlessCall(t, rdb, "pop", "other", "w", 1)
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}

	var r struct {
		Total     int
		Throttles []struct {
			ID, Queue      string
			Maximum, Locks int64
		}
	}
	if err := json.Unmarshal([]byte(httpGet(t, base, "/api/throttles")), &r); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(r.Total, r.Throttles)
	if want := "3 [{a-first  4 0} {ql:q:bulk bulk 2 0} {zz-last  0 1}]"; got != want {
		t.Fatalf("/api/throttles: %s, want %s", got, want)
	}
	stats := rdb.Info(ctx, "commandstats").Val()
	calls := 0
	fmt.Sscanf(infoField(stats, "cmdstat_scan"), "calls=%d", &calls)
	// One SCAN per key type from the ql:t keys; from cursor 0 it would take
	// 6 or more per type of 1,000 keys each.
	if calls < 1 || calls > 4 {
		t.Fatalf("SCAN calls for the throttles list: %d (%s)", calls, infoField(stats, "cmdstat_scan"))
	}
}
