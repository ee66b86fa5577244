package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
	"github.com/redis/go-redis/v9"
)

// dash is a started qlessd with the dashboard serving it over HTTP, and
// a qless client of that server.
type dash struct {
	t   testing.TB
	q   *Proc
	rdb *redis.Client
	srv *httptest.Server
	d   *dashboard.Dashboard
}

// startDash starts qlessd (with extra flags) and a dashboard for it.
func startDash(t testing.TB, opts dashboard.Options, extra ...string) *dash {
	t.Helper()
	q := StartQlessd(t, "", extra...)
	opts.Addr = q.Addr
	d, err := dashboard.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d)
	pass := ""
	if opts.Password != nil {
		pass = opts.Password()
	}
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Password: pass})
	t.Cleanup(func() {
		// Closing the dashboard first ends its event streams, which a
		// browser still open would otherwise keep going.
		d.Close()
		srv.CloseClientConnections()
		srv.Close()
		rdb.Close()
	})
	return &dash{t: t, q: q, rdb: rdb, srv: srv, d: d}
}

// qless runs QLESS fn now args... and returns the reply as text.
func (d *dash) qless(fn string, args ...any) string {
	d.t.Helper()
	v, err := d.rdb.Do(context.Background(), append([]any{"QLESS", fn, "now"}, args...)...).Result()
	if err != nil && err != redis.Nil {
		d.t.Fatalf("QLESS %s %v: %v", fn, args, err)
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

// state returns a job's state as QLESS get reports it ("" when gone).
func (d *dash) state(jid string) string {
	d.t.Helper()
	s := d.qless("get", jid)
	if s == "" {
		return ""
	}
	var j struct{ State string }
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		d.t.Fatalf("get %s: %v", jid, err)
	}
	return j.State
}

// failJob puts a job and fails it in group with message.
func (d *dash) failJob(queue, jid, data, group, message string) {
	d.t.Helper()
	d.qless("put", "producer", queue, jid, "Klass", data, 0)
	if got := d.qless("pop", queue, "worker-1", 1); !strings.Contains(got, jid) {
		d.t.Fatalf("pop %s did not give %s: %s", queue, jid, got)
	}
	d.qless("fail", jid, "worker-1", group, message, data)
}

// get fetches path and returns the status and body.
func (d *dash) get(path string) (int, string) {
	d.t.Helper()
	return d.do(http.MethodGet, path, nil, nil)
}

func (d *dash) do(method, path string, form url.Values, header http.Header) (int, string) {
	d.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, d.srv.URL+path, body)
	if err != nil {
		d.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := client.Do(req)
	if err != nil {
		d.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// token reads the CSRF token as a script would.
func (d *dash) token() string {
	d.t.Helper()
	_, body := d.get("/api/csrf")
	var r struct{ Token string }
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Token == "" {
		d.t.Fatalf("GET /api/csrf: %q (%v)", body, err)
	}
	return r.Token
}

// post sends an action with the CSRF token and returns status and body.
func (d *dash) post(path string, form url.Values) (int, string) {
	d.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", d.token())
	return d.do(http.MethodPost, path, form, nil)
}

// mustContain fails unless body holds every one of wants.
func mustContain(t testing.TB, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Fatalf("%s: missing %q in:\n%s", what, w, body)
		}
	}
}

// events opens the live event stream as a page does and returns its lines.
func (d *dash) events() <-chan string {
	d.t.Helper()
	resp, err := http.Get(d.srv.URL + "/events")
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		d.t.Fatalf("/events content type %q", ct)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

// waitLine reads lines until one holds want and returns it.
func waitLine(t testing.TB, lines <-chan string, want string) string {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stream ended before %q", want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			t.Fatalf("no %q on the stream", want)
		}
	}
}

var qlessCalls = regexp.MustCompile(`cmdstat_qless:calls=(\d+)`)

// qlessCalls is how many QLESS calls the server has run (INFO
// commandstats).
func (d *dash) qlessCalls() int {
	d.t.Helper()
	info, err := d.rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		d.t.Fatal(err)
	}
	m := qlessCalls.FindStringSubmatch(info)
	if m == nil {
		d.t.Fatalf("no cmdstat_qless in INFO commandstats:\n%s", info)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
