package tests

import (
	"bufio"
	"context"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startLimited starts name with args under prlimit, allowed nofile open
// files.
func startLimited(t *testing.T, nofile int, name string, args ...string) *Proc {
	t.Helper()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	n := strconv.Itoa(nofile)
	p := startProc(t, t.TempDir(), prlimit, append([]string{"--nofile=" + n + ":" + n, name}, args...)...)
	t.Cleanup(p.Stop)
	return p
}

// fill connects n clients to addr, each sending PING, then one more, and
// returns the clients and what the last one heard.
func fill(t *testing.T, addr string, n int) (conns []net.Conn, refusal string) {
	t.Helper()
	for i := range n + 1 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(waitTimeout))
		if i == n {
			// Refused, it hears so at once and is closed; it sends nothing,
			// or the close would reset the connection and lose the words.
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("client %d: %v after %q", i+1, err, got)
			}
			return conns, string(got)
		}
		if _, err := c.Write([]byte("PING\r\n")); err != nil {
			t.Fatal(err)
		}
		if got, err := bufio.NewReader(c).ReadString('\n'); err != nil || got != "+PONG\r\n" {
			t.Fatalf("client %d: %q, %v", i+1, got, err)
		}
	}
	return conns, ""
}

// Started with more maxclients than its open-file limit allows, qlessd
// lowers maxclients to fit, as Redis does (logging it), and the client
// past it is told "max number of clients reached"; CONFIG SET cannot go
// past the limit either.
func TestMaxClientsFitFileLimit(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	q := startLimited(t, 64, binary(t), append([]string{"--port", port, "--dir", t.TempDir(), "--maxclients", "1000", "--http-addr", ""}, modeArgs()...)...)
	rport := strconv.Itoa(freePort(t))
	r := startLimited(t, 64, redisServerPath(t), "--port", rport, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxclients", "1000")
	for _, p := range []*Proc{q, r} {
		conns, refusal := fill(t, p.Addr, 32)
		if refusal != "-ERR max number of clients reached\r\n" {
			t.Errorf("%s: the 33rd client heard %q", p.Addr, refusal)
		}
		admin := &Raw{c: conns[0], rd: bufio.NewReader(conns[0])}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"CONFIG", "GET", "maxclients"}, "*2\r\n$10\r\nmaxclients\r\n$2\r\n32\r\n"},
			{[]string{"CONFIG", "SET", "maxclients", "100"}, "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with 32\r\n"},
			{[]string{"CONFIG", "SET", "maxclients", "20"}, "+OK\r\n"},
			{[]string{"CONFIG", "GET", "maxclients"}, "*2\r\n$10\r\nmaxclients\r\n$2\r\n20\r\n"},
		} {
			if got := admin.Do(t, c.args...); got != c.want {
				t.Errorf("%s %q: %q, want %q", p.Addr, c.args, got, c.want)
			}
		}
	}
	waitLog(t, q, "maxclients has been reduced to 32 to compensate for low ulimit")
}

// A limit that leaves no room for clients stops the start, as on Redis.
func TestFileLimitTooLowToStart(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prlimit, "--nofile=20:20", binary(t), "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(), "--http-addr", "").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "is not enough for the server to start") {
		t.Fatalf("want a refusal to start, got %v:\n%s", err, out)
	}
}
