package tests

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// get fetches base/metrics with HTTP Basic credentials when user or pass
// is set, and returns the status code and the WWW-Authenticate header.
func get(t *testing.T, base, user, pass string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" || pass != "" {
		req.SetBasicAuth(user, pass)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("WWW-Authenticate")
}

// With requirepass set, the listener asks for the password with HTTP
// Basic (any user name), as requirepass is at the time of the request, on
// loopback too unless http-auth is loopback-trusted.
func TestHTTPBasicAuthBeyondLoopback(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "0.0.0.0", "--requirepass", "s3cret")
	base = strings.Replace(base, "0.0.0.0", "127.0.0.1", 1)
	raw := DialRaw(t, q.Addr)
	if got := raw.Do(t, "AUTH", "s3cret"); got != "+OK\r\n" {
		t.Fatalf("AUTH: %q", got)
	}
	check := func(user, pass string, want int) {
		t.Helper()
		code, challenge := get(t, base, user, pass)
		if code != want {
			t.Errorf("user %q password %q: status %d, want %d", user, pass, code, want)
		}
		if want == http.StatusUnauthorized && !strings.HasPrefix(challenge, "Basic ") {
			t.Errorf("401 without a Basic challenge: %q", challenge)
		}
	}
	check("", "", http.StatusUnauthorized)
	check("default", "wrong", http.StatusUnauthorized)
	check("default", "s3cret!", http.StatusUnauthorized)
	check("anyone", "s3cret", http.StatusOK)
	check("", "s3cret", http.StatusOK)

	raw.Do(t, "CONFIG", "SET", "requirepass", "other")
	check("anyone", "s3cret", http.StatusUnauthorized)
	check("anyone", "other", http.StatusOK)
	raw.Do(t, "CONFIG", "SET", "requirepass", "")
	check("", "", http.StatusOK)

	// On loopback it is asked as well (http-auth password, the default),
	// unless http-auth is loopback-trusted.
	_, loop := StartQlessdHTTP(t, "", "127.0.0.1", "--requirepass", "s3cret")
	if code, challenge := get(t, loop, "", ""); code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Basic ") {
		t.Errorf("on loopback with requirepass: status %d challenge %q, want 401 Basic", code, challenge)
	}
	if code, _ := get(t, loop, "", "s3cret"); code != http.StatusOK {
		t.Errorf("on loopback with the password: status %d, want 200", code)
	}
	_, trusted := StartQlessdHTTP(t, "", "127.0.0.1", "--requirepass", "s3cret", "--http-auth", "loopback-trusted")
	if code, _ := get(t, trusted, "", ""); code != http.StatusOK {
		t.Errorf("on loopback with requirepass and loopback-trusted: status %d, want 200", code)
	}
}

var listenerLog = regexp.MustCompile(`msg="http listener ready" addr=(\S+)`)

// The listener logs the address it has (the port the system chose for
// :0); CONFIG GET shows http-addr as given, and CONFIG SET refuses it. An
// empty --http-addr starts none.
func TestHTTPAddr(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "", "--loglevel", "notice", "--http-addr", "127.0.0.1:0")
	waitLog(t, q, "ready to accept connections")
	m := listenerLog.FindStringSubmatch(q.Output())
	if m == nil {
		t.Fatalf("no listener address logged:\n%s", q.Output())
	}
	if strings.HasSuffix(m[1], ":0") {
		t.Fatalf("logged %s, not the port it has", m[1])
	}
	if code, _ := get(t, "http://"+m[1], "", ""); code != http.StatusOK {
		t.Errorf("GET /metrics at the logged address: %d", code)
	}
	raw := DialRaw(t, q.Addr)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"CONFIG", "GET", "http-addr"}, "*2\r\n$9\r\nhttp-addr\r\n$11\r\n127.0.0.1:0\r\n"},
		{[]string{"CONFIG", "SET", "http-addr", "127.0.0.1:9"}, "-ERR CONFIG SET failed (possibly related to argument 'http-addr') - can't set immutable config\r\n"},
	} {
		if got := raw.Do(t, c.args...); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}

	off := StartQlessd(t, "", "--loglevel", "notice", "--http-addr", "127.0.0.1:0", "--http-addr", "")
	waitLog(t, off, "ready to accept connections")
	if strings.Contains(off.Output(), "http listener") {
		t.Errorf("--http-addr \"\" started a listener:\n%s", off.Output())
	}
	if got := DialRaw(t, off.Addr).Do(t, "CONFIG", "GET", "http-addr"); got != "*2\r\n$9\r\nhttp-addr\r\n$0\r\n\r\n" {
		t.Errorf("CONFIG GET http-addr: %q", got)
	}
}

// An HTTP address already taken stops the start with exit status 1 and a
// message naming it, as a taken RESP port does.
func TestHTTPAddrTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(),
		"--http-addr", ln.Addr().String())
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit status %d (%v), want 1:\n%s", code, err, out)
	}
	if !strings.Contains(string(out), "http-addr") || !strings.Contains(string(out), "address already in use") {
		t.Errorf("message does not say the http address is taken:\n%s", out)
	}
}
