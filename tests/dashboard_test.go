package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
)

// seedDash gives the server a bit of everything the pages show.
func seedDash(d *dash) {
	d.qless("put", "producer", "emails", "jid-wait", "SendEmail", `{"to":"a@example.com"}`, 0, "tags", `["vip","eu"]`)
	d.qless("put", "producer", "emails", "jid-vip2", "SendEmail", `{}`, 0, "tags", `["vip"]`)
	d.qless("put", "producer", "reports", "jid-later", "Report", `{}`, 3600)
	d.qless("put", "producer", "reports", "jid-run", "Report", `{}`, 0)
	d.qless("pop", "reports", "worker-7", 1)
	d.qless("recur", "reports", "jid-nightly", "Nightly", `{}`, "interval", 86400, 0)
	d.failJob("billing", "jid-failed", `{}`, "smtp-timeout", "server did not answer\n  at send (mail.py:3)")
	d.qless("track", "track", "jid-wait")
}

func TestDashboardPages(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	seedDash(d)
	pages := []struct {
		path  string
		wants []string
	}{
		{"/", []string{"emails", "reports", "smtp-timeout", "worker-7", `data-queue="emails"`}},
		{"/queues/emails", []string{"jid-wait", "jid-vip2", "Pause", "Wait time today"}},
		{"/queues/reports?state=scheduled", []string{"jid-later"}},
		{"/queues/reports?state=running", []string{"jid-run", "worker-7"}},
		{"/queues/reports?state=recurring", []string{"jid-nightly", "Nightly"}},
		{"/jobs/jid-failed", []string{"server did not answer", "mail.py:3", "Retry", "smtp-timeout"}},
		{"/jobs/jid-nightly", []string{"Recurring job", "86400"}},
		{"/failed", []string{"smtp-timeout", "Retry all", "Cancel all"}},
		{"/failed/smtp-timeout", []string{"jid-failed", "server did not answer"}},
		{"/workers", []string{"worker-7"}},
		{"/workers/worker-7", []string{"jid-run"}},
		{"/tags", []string{"vip"}},
		{"/tags/vip", []string{"jid-wait", "jid-vip2"}},
		{"/tracked", []string{"jid-wait"}},
		{"/recurring", []string{"jid-nightly"}},
		{"/config", []string{"heartbeat", "jobs-history"}},
	}
	for _, p := range pages {
		code, body := d.get(p.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", p.path, code, body)
		}
		mustContain(t, p.path, body, p.wants...)
	}
	bad := []struct {
		path, want string
		code       int
	}{
		{"/jobs/no-such-job", "no job &#34;no-such-job&#34;", 404},
		{"/queues/emails?state=bogus", "state must be one of", 400},
		{"/queues/emails?offset=-1", "offset must be a whole number", 400},
		{"/api/queues/emails/jobs?limit=1000", "limit must be a whole number from 1 to 100", 400},
		{"/api/jobs/no-such-job", `"error":"no job \"no-such-job\""`, 404},
		{"/api/nothing", "no such API", 404},
		{"/nothing", "no such page", 404},
	}
	for _, b := range bad {
		code, body := d.get(b.path)
		if code != b.code {
			t.Fatalf("GET %s: %d, want %d\n%s", b.path, code, b.code, body)
		}
		mustContain(t, b.path, body, b.want)
	}
}

func TestDashboardAPI(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{})
	seedDash(d)
	// The queues the API lists are QLESS queues' own.
	_, body := d.get("/api/queues")
	var got, want []dashboard.QueueCounts
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("/api/queues: %v\n%s", err, body)
	}
	json.Unmarshal([]byte(d.qless("queues")), &want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("/api/queues = %v, QLESS queues = %v", got, want)
	}
	// Waiting jobs page in pop order, with the total of the state.
	for i := 0; i < 30; i++ {
		d.qless("put", "producer", "bulk", fmt.Sprintf("bulk-%02d", i), "K", "{}", 0, "priority", i)
	}
	_, body = d.get("/api/queues/bulk/jobs?state=waiting&offset=25&limit=10")
	var page struct {
		Total int64
		Jobs  []dashboard.Job
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		t.Fatal(err)
	}
	if page.Total != 30 || len(page.Jobs) != 5 || page.Jobs[0].JID != "bulk-04" || page.Jobs[4].JID != "bulk-00" {
		t.Fatalf("second page of bulk: %s", body)
	}
	// A queue's recurring jobs are read as recurring jobs.
	_, body = d.get("/api/queues/reports/jobs?state=recurring")
	mustContain(t, "recurring jobs", body, `"state":"recurring"`, `"total":1`, `"jid":"jid-nightly"`, `"klass":"Nightly"`, `"interval":86400`)
	_, body = d.get("/api/failed")
	mustContain(t, "/api/failed", body, `"total":1`, `"group":"smtp-timeout","count":1`)
	_, body = d.get("/api/jobs/jid-failed")
	mustContain(t, "/api/jobs", body, `"state":"failed"`, `"message":"server did not answer\n  at send (mail.py:3)"`)
	_, body = d.get("/api/tags/vip")
	mustContain(t, "/api/tags/vip", body, `"total":2`, "jid-wait", "jid-vip2")
	_, body = d.get("/api/workers/worker-7")
	mustContain(t, "/api/workers", body, "jid-run")
}

// A job's data, a failure message, a queue, a tag and a worker name are
// user input: every page shows them as text.
func TestDashboardEscapesStoreValues(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	evil := `<script>alert(1)</script>`
	d.failJob("<b>q</b>", "jid-<x>", `{"html":"`+strings.ReplaceAll(evil, "/", `\/`)+`"}`,
		`grp"><script>alert(2)</script>`, `<img src=x onerror=alert(3)>`)
	d.qless("tag", "add", "jid-<x>", `"><script>alert(4)</script>`)
	for _, p := range []string{"/", "/jobs/" + url.PathEscape("jid-<x>"), "/failed",
		"/failed/" + url.PathEscape(`grp"><script>alert(2)</script>`), "/queues/" + url.PathEscape("<b>q</b>") + "?state=waiting",
		"/workers/worker-1"} {
		code, body := d.get(p)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", p, code, body)
		}
		for _, raw := range []string{"<script>alert", "<img src=x", "<b>q</b>", "jid-<x>"} {
			if strings.Contains(body, raw) {
				t.Fatalf("GET %s shows %q unescaped:\n%s", p, raw, body)
			}
		}
	}
	_, body := d.get("/jobs/" + url.PathEscape("jid-<x>"))
	mustContain(t, "job page", body, "&lt;script&gt;alert(1)&lt;\\/script&gt;", "&lt;img src=x onerror=alert(3)&gt;", "&lt;b&gt;q&lt;/b&gt;")
	_, body = d.get("/api/jobs/" + url.PathEscape("jid-<x>"))
	if strings.Contains(body, "<script>") {
		t.Fatalf("API JSON holds a raw <script>: %s", body)
	}
}

func TestDashboardActionsNeedTokenAndAdmin(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	d.failJob("emails", "jid-1", "{}", "boom", "it broke")
	// No token, a wrong one, a cross-site request with the right one.
	code, body := d.do(http.MethodPost, "/api/jobs/jid-1/retry", url.Values{}, nil)
	if code != http.StatusForbidden || !strings.Contains(body, "CSRF token") {
		t.Fatalf("retry without token: %d %s", code, body)
	}
	code, _ = d.do(http.MethodPost, "/api/jobs/jid-1/retry", url.Values{"csrf": {"0000"}}, nil)
	if code != http.StatusForbidden {
		t.Fatalf("retry with a wrong token: %d", code)
	}
	code, body = d.do(http.MethodPost, "/api/jobs/jid-1/retry", url.Values{"csrf": {d.token()}},
		http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}})
	if code != http.StatusForbidden || !strings.Contains(body, "cross-origin") {
		t.Fatalf("cross-site retry: %d %s", code, body)
	}
	if s := d.state("jid-1"); s != "failed" {
		t.Fatalf("a refused retry changed the job: %s", s)
	}
	code, body = d.post("/api/jobs/jid-1/retry", nil)
	if code != http.StatusOK || d.state("jid-1") != "waiting" {
		t.Fatalf("retry: %d %s, state %s", code, body, d.state("jid-1"))
	}
	// A page's form goes back to the page, saying what was done.
	code, body = d.post("/api/queues/emails/pause", url.Values{"back": {"/queues/emails"}})
	if code != http.StatusSeeOther || !strings.Contains(d.qless("queues", "emails"), `"paused":true`) {
		t.Fatalf("pause: %d %s", code, body)
	}
	// Back never leaves the site.
	code, _ = d.post("/api/queues/emails/unpause", url.Values{"back": {"//evil.example/x"}})
	if code != http.StatusOK {
		t.Fatalf("unpause with a foreign back: %d, want a JSON 200", code)
	}

	ro := startDash(t, dashboard.Options{Admin: false})
	ro.failJob("emails", "jid-2", "{}", "boom", "it broke")
	code, body = ro.post("/api/jobs/jid-2/retry", nil)
	if code != http.StatusForbidden || !strings.Contains(body, "read-only") || ro.state("jid-2") != "failed" {
		t.Fatalf("read-only retry: %d %s", code, body)
	}
	_, body = ro.get("/jobs/jid-2")
	if strings.Contains(body, `id="retry"`) || strings.Contains(body, "/api/jobs/jid-2/cancel") {
		t.Fatal("a read-only dashboard shows action buttons")
	}
}

func TestDashboardJobActions(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	d.qless("put", "producer", "q1", "j1", "K", `{"a":1}`, 0, "priority", 3)
	steps := []struct {
		path string
		form url.Values
		code int
		want string
	}{
		{"/api/jobs/j1/priority", url.Values{"priority": {"7.5"}}, 200, `"priority":7.5`},
		{"/api/jobs/j1/priority", url.Values{"priority": {"high"}}, 400, `"priority":7.5`},
		{"/api/jobs/j1/tag", url.Values{"tag": {"urgent"}}, 200, `"tags":["urgent"]`},
		{"/api/jobs/j1/tag", url.Values{"tag": {""}}, 400, `"tags":["urgent"]`},
		{"/api/jobs/j1/untag", url.Values{"tag": {"urgent"}}, 200, `"tags":{}`},
		{"/api/jobs/j1/track", nil, 200, `"tracked":true`},
		{"/api/jobs/j1/untrack", nil, 200, `"tracked":false`},
		{"/api/jobs/j1/move", url.Values{"queue": {"q2"}}, 200, `"queue":"q2"`},
		{"/api/jobs/j1/move", url.Values{"queue": {" "}}, 400, `"queue":"q2"`},
	}
	for _, s := range steps {
		code, body := d.post(s.path, s.form)
		if code != s.code {
			t.Fatalf("POST %s %v: %d, want %d: %s", s.path, s.form, code, s.code, body)
		}
		mustContain(t, s.path, d.qless("get", "j1"), s.want, `"data":"{\"a\":1}"`)
	}
	if code, body := d.post("/api/jobs/nope/cancel", nil); code != 400 || !strings.Contains(body, `no job \"nope\"`) {
		t.Fatalf("cancel of a missing job: %d %s", code, body)
	}
	// qless refuses to cancel a job another depends on; the reason shows.
	d.qless("put", "producer", "q1", "child", "K", "{}", 0, "depends", `["j1"]`)
	code, body := d.post("/api/jobs/j1/cancel", nil)
	if code != 400 || !strings.Contains(body, "is a dependency of child") || d.state("j1") != "waiting" {
		t.Fatalf("cancel of a dependency: %d %s", code, body)
	}
	if code, _ := d.post("/api/jobs/child/cancel", nil); code != 200 || d.state("child") != "" {
		t.Fatalf("cancel: %d, state %q", code, d.state("child"))
	}
}

// Retry all and cancel all work through groups larger than one batch.
func TestDashboardGroupActions(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	for i := 0; i < 450; i++ {
		queue := []string{"qa", "qb"}[i%2]
		jid := fmt.Sprintf("f-%03d", i)
		d.qless("put", "producer", queue, jid, "K", "{}", 0)
		d.qless("pop", queue, "w", 1)
		group := "g-retry"
		if i >= 300 {
			group = "g/cancel"
		}
		d.qless("fail", jid, "w", group, "failed", "{}")
	}
	code, body := d.post("/api/failed/g-retry/retry", nil)
	mustContain(t, "retry all", body, "put 300 jobs back")
	if code != 200 || d.state("f-000") != "waiting" || !strings.Contains(d.qless("get", "f-001"), `"queue":"qb"`) {
		t.Fatalf("retry all: %d %s", code, body)
	}
	code, body = d.post("/api/failed/"+url.PathEscape("g/cancel")+"/cancel", nil)
	mustContain(t, "cancel all", body, "canceled 150 jobs")
	if code != 200 || d.state("f-449") != "" || d.qless("failed") != "{}" {
		t.Fatalf("cancel all: %d %s; failed: %s", code, body, d.qless("failed"))
	}
}

// On a listener beyond loopback with requirepass set, qlessd's HTTP
// listener asks for the password before any dashboard page, read or
// action; the dashboard itself adds no check of its own.
func TestDashboardAsksPasswordBeyondLoopback(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "0.0.0.0", "--requirepass", "s3cret", "--http-admin", "yes")
	base = strings.Replace(base, "0.0.0.0", "127.0.0.1", 1)
	raw := DialRaw(t, q.Addr)
	if got := raw.Do(t, "AUTH", "s3cret"); got != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	raw.Do(t, "QLESS", "put", "now", "producer", "emails", "jid-1", "K", "{}", "0")
	send := func(method, path, pass string, form url.Values) (int, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequest(method, base+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if pass != "" {
			req.SetBasicAuth("anyone", pass)
		}
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%s %s: 401 without a Basic challenge", method, path)
		}
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/", "/queues/emails", "/jobs/jid-1", "/api/queues", "/api/csrf", "/events", "/static/app.css"} {
		for _, pass := range []string{"", "wrong"} {
			if code, _ := send(http.MethodGet, path, pass, nil); code != http.StatusUnauthorized {
				t.Errorf("GET %s with password %q: %d, want 401", path, pass, code)
			}
		}
	}
	code, body := send(http.MethodGet, "/queues/emails", "s3cret", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /queues/emails with the password: %d\n%s", code, body)
	}
	mustContain(t, "queue page", body, "jid-1")
	code, body = send(http.MethodGet, "/api/csrf", "s3cret", nil)
	var tok struct{ Token string }
	if err := json.Unmarshal([]byte(body), &tok); code != http.StatusOK || err != nil || tok.Token == "" {
		t.Fatalf("GET /api/csrf with the password: %d %q", code, body)
	}
	// An action with the right token but without the password does nothing.
	form := url.Values{"csrf": {tok.Token}}
	for _, pass := range []string{"", "wrong"} {
		if code, _ := send(http.MethodPost, "/api/queues/emails/pause", pass, form); code != http.StatusUnauthorized {
			t.Errorf("POST pause with password %q: %d, want 401", pass, code)
		}
	}
	if got := raw.Do(t, "QLESS", "queues", "now", "emails"); strings.Contains(got, `"paused":true`) {
		t.Fatalf("a pause without the password paused the queue: %s", got)
	}
	if code, body := send(http.MethodPost, "/api/queues/emails/pause", "s3cret", form); code != http.StatusOK {
		t.Fatalf("POST pause with the password: %d %s", code, body)
	}
	if got := raw.Do(t, "QLESS", "queues", "now", "emails"); !strings.Contains(got, `"paused":true`) {
		t.Fatalf("pause with the password did not pause the queue: %s", got)
	}
}

// The event stream sends counts at once, then the events of a put made by
// another client.
func TestDashboardLiveStream(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{})
	lines := d.events()
	wait := func(want string) string {
		t.Helper()
		return waitLine(t, lines, want)
	}
	wait("event: counts")
	// The subscription starts with the first page; put until an event
	// shows it is in place.
	for i := 0; ; i++ {
		d.qless("put", "producer", "live-q", fmt.Sprintf("live-%d", i), "K", "{}", 0)
		select {
		case l := <-lines:
			if strings.Contains(l, `\"event\":\"put\"`) {
				mustContain(t, "event", l, "live-q", `"channel":"ql:log"`)
				wait(`"name":"live-q"`)
				// A busy server's events are sampled, and the page told so.
				pipe := d.rdb.Pipeline()
				for k := 0; k < 400; k++ {
					pipe.Do(context.Background(), "QLESS", "put", "now", "producer", "busy-q", fmt.Sprintf("busy-%d", k), "K", "{}", 0)
				}
				if _, err := pipe.Exec(context.Background()); err != nil {
					t.Fatal(err)
				}
				wait(`"sampled":true`)
				return
			}
		case <-time.After(200 * time.Millisecond):
		}
		if i > 100 {
			t.Fatal("no put event on the stream")
		}
	}
}

// Pages opening while the live hub runs share its reads of the counts
// rather than each reading them, and every one of them gets the counts.
func TestDashboardLiveCountsShared(t *testing.T) {
	t.Parallel()
	// The throughput sampler's reads would blur the count of QLESS calls.
	d := startDash(t, dashboard.Options{SampleEvery: time.Hour})
	waitLine(t, d.events(), "event: counts")
	before := d.qlessCalls()
	const pages = 10
	var streams []<-chan string
	for i := 0; i < pages; i++ {
		streams = append(streams, d.events())
	}
	for _, lines := range streams {
		waitLine(t, lines, "event: counts")
	}
	// A read of the counts is two QLESS calls (queues, failed); the pages
	// join within a few flushes of each other, each flush reading once.
	if calls := d.qlessCalls() - before; calls >= pages {
		t.Fatalf("%d pages opening made %d QLESS calls: they read the counts each", pages, calls)
	}
}

// Completed jobs show in the throughput of the minute they completed in.
func TestDashboardThroughput(t *testing.T) {
	d := startDash(t, dashboard.Options{SampleEvery: 50 * time.Millisecond})
	// The dashboard reads nothing until someone looks: the first request
	// has it take the sample the chart counts from.
	d.get("/api/throughput?queue=tq")
	dashWait(t, func() bool { _, samples := d.d.SamplerTicks(); return samples > 0 })
	for i := 0; i < 7; i++ {
		jid := fmt.Sprintf("t-%d", i)
		d.qless("put", "producer", "tq", jid, "K", "{}", 0)
		d.qless("pop", "tq", "w", 1)
		d.qless("complete", jid, "w", "tq", "{}")
	}
	dashWait(t, func() bool {
		_, body := d.get("/api/throughput?queue=tq")
		var tp dashboard.Throughput
		json.Unmarshal([]byte(body), &tp)
		var sum int64
		for _, c := range tp.Counts {
			sum += c
		}
		return sum == 7 && len(tp.Counts) == 60
	})
}

// dashWait polls cond until it holds, failing after a generous deadline.
func dashWait(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 15s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
