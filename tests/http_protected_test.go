package tests

import (
	"io"
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
	t.Parallel()
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
// it again. Here the client is this machine's own non-loopback address;
// TestHTTPProtectedModeFromAnotherHost (Linux, root) sends it over a veth
// pair from another network namespace.
func TestHTTPProtectedModeAtRunTime(t *testing.T) {
	t.Parallel()
	outside := outsideAddr(t)
	port := strconv.Itoa(freePort(t))
	q := StartQlessd(t, "", "--bind", "0.0.0.0", "--requirepass", "x", "--http-addr", "0.0.0.0:"+port, "--http-admin", "yes")
	protectedSteps(t, protectedView{
		admin: DialRaw(t, q.Addr),
		far:   outsideClient(outside), farBase: "http://" + net.JoinHostPort(outside, port),
		near: &http.Client{Timeout: 30 * time.Second}, nearBase: "http://127.0.0.1:" + port,
	})
}

// protectedView is a node under test: an admin connection from loopback,
// and HTTP clients from beyond loopback (far) and from loopback (near).
type protectedView struct {
	admin             *Raw
	far, near         *http.Client
	farBase, nearBase string
	// farRESP, when set, dials the RESP port from beyond loopback.
	farRESP func() string
}

// protectedSteps drops the password of a node started with requirepass x
// and checks what far and near clients get at each step.
func protectedSteps(t *testing.T, v protectedView) {
	t.Helper()
	v.admin.Do(t, "AUTH", "x")
	v.admin.Do(t, "QLESS", "put", "now", "producer", "emails", "jid-1", "K", "{}", "0")
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
			if got := v.admin.Do(t, append([]string{"CONFIG", "SET"}, st.config...)...); got != "+OK\r\n" {
				t.Fatalf("CONFIG SET %q: %q", st.config, got)
			}
		}
		for _, path := range dashPaths {
			code, body := protectedSend(t, v.far, v.farBase, http.MethodGet, path, st.pass)
			if code != st.far {
				t.Errorf("after %q, GET %s%s: %d %q, want %d", st.config, v.farBase, path, code, body, st.far)
			}
			if code == http.StatusForbidden && !strings.Contains(body, "protected mode") {
				t.Errorf("GET %s refused without the reason: %q", path, body)
			}
		}
		if st.far != http.StatusOK {
			if code, _ := protectedSend(t, v.far, v.farBase, http.MethodPost, "/api/jobs/jid-1/cancel", ""); code != st.far {
				t.Errorf("after %q, POST cancel to %s: %d, want %d", st.config, v.farBase, code, st.far)
			}
			if got := v.admin.Do(t, "QLESS", "get", "now", "jid-1"); !strings.Contains(got, `"state":"waiting"`) {
				t.Fatalf("a refused cancel changed the job: %s", got)
			}
		}
		if st.far == http.StatusForbidden && v.farRESP != nil {
			// The RESP port refuses the same client at the same moment.
			if got := v.farRESP(); !strings.HasPrefix(got, "-DENIED Redis is running in protected mode") {
				t.Errorf("after %q, RESP from beyond loopback: %q, want -DENIED", st.config, got)
			}
		}
		if st.config != nil && st.config[0] == "requirepass" && st.config[1] == "" {
			// Loopback clients are served, as RESP serves them.
			for _, path := range dashPaths {
				if code, body := protectedSend(t, v.near, v.nearBase, http.MethodGet, path, ""); code != http.StatusOK {
					t.Errorf("GET %s from loopback in protected mode: %d %q, want 200", path, code, body)
				}
			}
		}
	}
}

// protectedSend sends one request; an action carries a form (its token
// does not matter: the refusal comes first). A 200 body is not read, as
// /events does not end.
func protectedSend(t *testing.T, c *http.Client, base, method, path, pass string) (int, string) {
	t.Helper()
	body := strings.NewReader("")
	if method == http.MethodPost {
		body = strings.NewReader(url.Values{"csrf": {"any"}}.Encode())
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
		return resp.StatusCode, ""
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
