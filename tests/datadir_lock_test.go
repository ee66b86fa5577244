package tests

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// runQlessd runs the binary to its end (with a generous deadline) and
// returns its exit code and output.
func runQlessd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary(t), args...).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee) && ctx.Err() == nil:
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("qlessd %q: %v\n%s", args, err, out)
	return 0, ""
}

// A second qlessd on a data directory in use exits 1 at once, naming the
// pid that holds it, and the first goes on serving; qlessd check refuses
// the directory too.
func TestSecondServerOnOneDirectoryExits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	if err := rdb.Set(ctx, "first", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("data directory %s is in use by pid %d", dir, q.cmd.Process.Pid)
	code, out := runQlessd(t, append([]string{"--port", strconv.Itoa(freePort(t)), "--dir", dir, "--http-addr", ""}, modeArgs()...)...)
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("second qlessd on %s: exit %d, want 1 and %q:\n%s", dir, code, want, out)
	}
	if err := rdb.Set(ctx, "after", "2", 0).Err(); err != nil {
		t.Fatalf("the first server after the second gave up: %v", err)
	}
	if v, err := rdb.Get(ctx, "first").Result(); err != nil || v != "1" {
		t.Fatalf("first = %q, %v", v, err)
	}
	for _, args := range [][]string{{"check", "--dir", dir}, {"check", "--dir", dir, "--repair"}} {
		code, out := runQlessd(t, args...)
		if code == 0 || !strings.Contains(out, want) || strings.Contains(out, "state:") {
			t.Fatalf("qlessd %q on a directory in use: exit %d:\n%s", args, code, out)
		}
	}
	q.Stop()
	if code, out := runQlessd(t, "check", "--dir", dir); code != 0 || !strings.Contains(out, "state: ok") {
		t.Fatalf("check after the server stopped: exit %d:\n%s", code, out)
	}
}

// qlessd check on a directory without a data file says so and fails.
func TestCheckWithoutDataFileFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out := runQlessd(t, "check", "--dir", dir)
	if code == 0 || !strings.Contains(out, "there is no data file in "+dir) || strings.Contains(out, "state: ok") {
		t.Fatalf("check on an empty directory: exit %d:\n%s", code, out)
	}
}

// Two servers given only different ports both run: unless --http-addr
// is given, each one's HTTP listener is on its own port + 1101.
func TestDefaultHTTPPortFollowsPort(t *testing.T) {
	for range 2 {
		dir := t.TempDir()
		q := startOnFreePort(t, dir, binary(t), func(port int) []string {
			return append([]string{"--port", strconv.Itoa(port), "--dir", dir, "--loglevel", "warning"}, modeArgs()...)
		})
		t.Cleanup(q.Stop)
		_, ps, _ := net.SplitHostPort(q.Addr)
		port, _ := strconv.Atoi(ps)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port+1101))
		got := configGet(t, q.Addr, "http-addr")["http-addr"]
		if got != addr {
			t.Fatalf("CONFIG GET http-addr = %q, want %q", got, addr)
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatalf("GET /metrics on port + 1101: %v\n%s", err, q.Output())
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /metrics on port + 1101: %d", resp.StatusCode)
		}
	}
}
