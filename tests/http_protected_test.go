package tests

import (
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An HTTP listener beyond loopback in protected mode (protected-mode yes,
// no requirepass) stops the start with exit status 1 and says why, as
// --bind beyond loopback does; protected-mode no or a password lets it
// start.
func TestHTTPProtectedModeRefusesStart(t *testing.T) {
	httpAddr := "0.0.0.0:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(binary(t), "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(), "--http-addr", httpAddr)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit status %d (%v), want 1:\n%s", code, err, out)
	}
	for _, want := range []string{"protected mode", "refusing to serve HTTP on \\\"" + httpAddr, "--requirepass", "--protected-mode no"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	for _, extra := range [][]string{{"--protected-mode", "no"}, {"--requirepass", "x"}} {
		q, base := StartQlessdHTTP(t, "", "0.0.0.0", extra...)
		base = strings.Replace(base, "0.0.0.0", "127.0.0.1", 1)
		if code, _ := get(t, base, "", "x"); code != http.StatusOK {
			t.Errorf("with %q: GET /metrics %d, want 200", extra, code)
		}
		q.Stop()
	}
}

// outsideClient is an HTTP client whose connections come from addr, an
// address of this machine beyond loopback, so that the server sees a
// network client (protected_test.go dials the RESP port the same way).
func outsideClient(addr string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

// At run time protected mode covers HTTP as it covers RESP: once a node
// bound to every interface loses its password (CONFIG SET requirepass ""),
// every path answers 403 with the reason to clients from beyond loopback,
// and serves local ones; protected-mode no opens it, a password asks for
// it again.
func TestHTTPProtectedModeAtRunTime(t *testing.T) {
	outside := outsideAddr(t)
	port := strconv.Itoa(freePort(t))
	q := StartQlessd(t, "", "--bind", "0.0.0.0", "--requirepass", "x", "--http-addr", "0.0.0.0:"+port, "--http-admin", "yes")
	admin := DialRaw(t, q.Addr)
	admin.Do(t, "AUTH", "x")
	admin.Do(t, "QLESS", "put", "now", "producer", "emails", "jid-1", "K", "{}", "0")
	far, near := outsideClient(outside), &http.Client{Timeout: 30 * time.Second}
	farBase, nearBase := "http://"+net.JoinHostPort(outside, port), "http://127.0.0.1:"+port
	send := func(c *http.Client, base, method, path, pass string) (int, string) {
		t.Helper()
		var body *strings.Reader
		if method == http.MethodPost {
			body = strings.NewReader(url.Values{"csrf": {"any"}}.Encode())
		} else {
			body = strings.NewReader("")
		}
		req, err := http.NewRequest(method, base+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if pass != "" {
			req.SetBasicAuth("anyone", pass)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s%s: %v", method, base, path, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return resp.StatusCode, "" // /events does not end
		}
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		return resp.StatusCode, string(b[:n])
	}
	type step struct {
		config []string // CONFIG SET first
		pass   string
		far    int // status for every path from beyond loopback
	}
	for _, st := range []step{
		{nil, "x", http.StatusOK},
		{[]string{"requirepass", ""}, "", http.StatusForbidden},
		{[]string{"protected-mode", "no"}, "", http.StatusOK},
		{[]string{"protected-mode", "yes"}, "", http.StatusForbidden},
		{[]string{"requirepass", "y"}, "", http.StatusUnauthorized},
	} {
		if st.config != nil {
			if got := admin.Do(t, append([]string{"CONFIG", "SET"}, st.config...)...); got != "+OK\r\n" {
				t.Fatalf("CONFIG SET %q: %q", st.config, got)
			}
		}
		for _, path := range dashPaths {
			code, body := send(far, farBase, http.MethodGet, path, st.pass)
			if code != st.far {
				t.Errorf("after %q, GET %s from %s: %d %q, want %d", st.config, path, outside, code, body, st.far)
			}
			if code == http.StatusForbidden && !strings.Contains(body, "protected mode") {
				t.Errorf("GET %s refused without the reason: %q", path, body)
			}
		}
		if st.far != http.StatusOK {
			if code, _ := send(far, farBase, http.MethodPost, "/api/jobs/jid-1/cancel", ""); code != st.far {
				t.Errorf("after %q, POST cancel from %s: %d, want %d", st.config, outside, code, st.far)
			}
			if got := admin.Do(t, "QLESS", "get", "now", "jid-1"); !strings.Contains(got, `"state":"waiting"`) {
				t.Fatalf("a refused cancel changed the job: %s", got)
			}
		}
		if st.config != nil && st.config[0] == "requirepass" && st.config[1] == "" {
			// Loopback clients are served, as RESP serves them.
			for _, path := range dashPaths {
				if code, body := send(near, nearBase, http.MethodGet, path, ""); code != http.StatusOK {
					t.Errorf("GET %s from loopback in protected mode: %d %q, want 200", path, code, body)
				}
			}
		}
	}
}
