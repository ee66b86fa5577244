package tests

import (
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// pprof has no authentication and its heap profiles hold data: qlessd
// refuses to serve it beyond loopback in protected mode, and on loopback
// answers only requests that name it as loopback (no DNS rebinding).
func TestDebugAddrGuarded(t *testing.T) {
	t.Parallel()
	wide := "0.0.0.0:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(binary(t), "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(), "--http-addr", "", "--debug-addr", wide)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "refusing to serve pprof") || !strings.Contains(string(out), "--protected-mode no") {
		t.Fatalf("debug-addr %s in protected mode: exit %d, want 1 with the reason:\n%s", wide, code, out)
	}

	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	StartQlessd(t, "", "--debug-addr", addr)
	get := func(host string) (int, string) {
		req, err := http.NewRequest("GET", "http://"+addr+"/debug/pprof/cmdline", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// qlessd binds the debug listener before its client port, which
	// StartQlessd waited for: a refused connection here is a failure.
	if code, body := get(addr); code != http.StatusOK || !strings.Contains(body, "qlessd") {
		t.Errorf("GET with Host %s: %d %q", addr, code, body)
	}
	if code, _ := get("localhost:" + strings.Split(addr, ":")[1]); code != http.StatusOK {
		t.Errorf("GET with Host localhost: %d", code)
	}
	if code, body := get("evil.example:" + strings.Split(addr, ":")[1]); code != http.StatusMisdirectedRequest {
		t.Errorf("GET with a foreign Host: %d %q, want 421", code, body)
	}
	wideOK := "0.0.0.0:" + strconv.Itoa(freePort(t))
	StartQlessd(t, "", "--debug-addr", wideOK, "--protected-mode", "no")
}
