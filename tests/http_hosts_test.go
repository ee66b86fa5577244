package tests

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// hostReq is one request to the HTTP listener at base, sent with host as
// its Host header.
type hostReq struct {
	method, path, host string
	header             http.Header
	form               url.Values
	pass               string // HTTP Basic password, when set
}

func (r hostReq) send(t *testing.T, base string) (int, string) {
	t.Helper()
	var body io.Reader
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
	}
	req, err := http.NewRequest(r.method, base+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = r.host
	if r.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.pass != "" {
		req.SetBasicAuth("anyone", r.pass)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s (Host %q): %v", r.method, r.path, r.host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, "" // a stream that does not end
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// dashPaths are a page, an API read, the event stream, the metrics and a
// static file: every kind of path the listener serves.
var dashPaths = []string{"/", "/queues/emails", "/jobs/jid-1", "/api/queues", "/api/csrf", "/events", "/metrics", "/static/app.css"}

// want421 checks a refusal for a foreign Host: 421 with one line saying
// what to do.
func want421(t *testing.T, r hostReq, code int, body string) {
	t.Helper()
	if code != http.StatusMisdirectedRequest || strings.Count(strings.TrimSpace(body), "\n") != 0 ||
		!strings.Contains(body, "http-allowed-hosts") {
		t.Errorf("%s %s with Host %q: %d %q, want 421 naming http-allowed-hosts", r.method, r.path, r.host, code, body)
	}
}

// The listener serves only requests whose Host is one of its own names:
// DNS rebinding, where an attacker's name comes to resolve to 127.0.0.1,
// gets 421 on every path, and its POST with the attacker's Host, Origin and
// a valid token cancels nothing. http-allowed-hosts adds names at run time.
func TestHTTPHostAllowList(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1", "--http-admin", "yes")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	raw := DialRaw(t, q.Addr)
	raw.Do(t, "QLESS", "put", "now", "producer", "emails", "jid-1", "K", "{}", "0")
	evil := "evil.example:" + port
	for _, path := range dashPaths {
		for _, host := range []string{evil, "evil.example", "127.0.0.1:1", "localhost.evil.example:" + port, "192.0.2.250:" + port} {
			r := hostReq{method: http.MethodGet, path: path, host: host}
			code, body := r.send(t, base)
			want421(t, r, code, body)
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "127.0.0.1", "localhost:" + port, "LocalHost.", "[::1]:" + port, "[::1]"} {
		if code, body := (hostReq{method: http.MethodGet, path: "/api/csrf", host: host}).send(t, base); code != http.StatusOK {
			t.Errorf("GET /api/csrf with Host %q: %d %q, want 200", host, code, body)
		}
	}

	// The attack: the token read with the right Host, then posted
	// with the attacker's name as Host and Origin.
	_, body := (hostReq{method: http.MethodGet, path: "/api/csrf", host: "127.0.0.1:" + port}).send(t, base)
	var tok struct{ Token string }
	if err := json.Unmarshal([]byte(body), &tok); err != nil || tok.Token == "" {
		t.Fatalf("GET /api/csrf: %q", body)
	}
	form := url.Values{"csrf": {tok.Token}}
	cancel := hostReq{method: http.MethodPost, path: "/api/jobs/jid-1/cancel", host: evil, form: form,
		header: http.Header{"Origin": {"http://" + evil}, "Sec-Fetch-Site": {"same-origin"}}}
	code, body := cancel.send(t, base)
	want421(t, cancel, code, body)
	// With an allowed Host, the Origin must be an allowed name too: not
	// whatever the Host says, and any of the listener's names will do.
	cancel.host = "127.0.0.1:" + port
	cancel.header = http.Header{"Origin": {"http://" + evil}}
	if code, body := cancel.send(t, base); code != http.StatusForbidden || !strings.Contains(body, "cross-origin") {
		t.Errorf("cancel with Origin %s: %d %q, want 403 cross-origin", evil, code, body)
	}
	if got := raw.Do(t, "QLESS", "get", "now", "jid-1"); !strings.Contains(got, `"state":"waiting"`) {
		t.Fatalf("a refused cancel changed the job: %s", got)
	}

	// Names added at run time, with and without a port, then "*".
	for _, c := range []struct{ args, want string }{
		{"CONFIG SET http-allowed-hosts qless.example,Other.Example.:8443", "+OK\r\n"},
		{"CONFIG GET http-allowed-hosts", "*2\r\n$18\r\nhttp-allowed-hosts\r\n$32\r\nqless.example other.example:8443\r\n"},
		{"CONFIG SET http-allowed-hosts evil/x", "-ERR CONFIG SET failed (possibly related to argument 'http-allowed-hosts') - 'evil/x' is not a host name, an IP address or either with :port\r\n"},
		{"CONFIG GET http-allowed-hosts", "*2\r\n$18\r\nhttp-allowed-hosts\r\n$32\r\nqless.example other.example:8443\r\n"},
	} {
		if got := raw.Do(t, strings.Fields(c.args)...); got != c.want {
			t.Errorf("%s: %q, want %q", c.args, got, c.want)
		}
	}
	for host, want := range map[string]int{"qless.example": 200, "qless.example:" + port: 200, "qless.example:1": 421,
		"other.example:8443": 200, "other.example:" + port: 421, evil: 421} {
		if code, body := (hostReq{method: http.MethodGet, path: "/metrics", host: host}).send(t, base); code != want {
			t.Errorf("after CONFIG SET, GET /metrics with Host %q: %d %q, want %d", host, code, body, want)
		}
	}
	cancel.header = http.Header{"Origin": {"http://qless.example:" + port}}
	if code, body := cancel.send(t, base); code != http.StatusOK {
		t.Errorf("cancel with Origin of an allowed name: %d %q, want 200", code, body)
	}
	raw.Do(t, "CONFIG", "SET", "http-allowed-hosts", "*")
	if code, body := (hostReq{method: http.MethodGet, path: "/metrics", host: evil}).send(t, base); code != http.StatusOK {
		t.Errorf("with http-allowed-hosts *, Host %q: %d %q", evil, code, body)
	}
}

// Bound to every interface, the listener also answers to the machine's
// host name and own addresses, and to no other address.
func TestHTTPHostAllowListAnyInterface(t *testing.T) {
	t.Parallel()
	outside := outsideAddr(t)
	_, base := StartQlessdHTTP(t, "", "0.0.0.0", "--requirepass", "s3cret")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	base = "http://127.0.0.1:" + port
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]int{net.JoinHostPort(outside, port): 200, outside: 200,
		strings.ToUpper(hostname) + ":" + port: 200,
		"0.0.0.0:" + port:                      421, "203.0.113.9:" + port: 421, "evil.example:" + port: 421} {
		r := hostReq{method: http.MethodGet, path: "/metrics", host: host, pass: "s3cret"}
		code, body := r.send(t, base)
		if code != want {
			t.Errorf("Host %q: %d %q, want %d", host, code, body, want)
		}
	}
}
