package tests

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// crossProtocolLine is the warning Redis 7.0 logs for a cross-protocol
// request, which qlessd logs in the same words.
const crossProtocolLine = "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. " +
	"This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted."

// crossProtocolCase is what an HTTP client (a browser page, say) sends to
// the RESP port, one write per piece, and the keys its commands before the
// POST or Host: line set.
type crossProtocolCase struct {
	name   string
	pieces []string
	before []string // keys set by commands ahead of the attack, which run
}

var crossProtocolCases = []crossProtocolCase{
	{name: "issue POST", pieces: []string{
		"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 20\r\n\r\nSET xproto pwned\r\n"}},
	{name: "GET with Host", pieces: []string{
		"GET / HTTP/1.1\r\nHost: 127.0.0.1:6379\r\nAccept: */*\r\n\r\nSET xproto pwned\r\n"}},
	{name: "split across writes", pieces: []string{
		"PO", "ST /submit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Len", "gth: 20\r\n\r\nSET xp", "roto pwn", "ed\r\n"}},
	{name: "lowercase multibulk post", pieces: []string{
		"*1\r\n$4\r\npost\r\n*3\r\n$3\r\nSET\r\n$6\r\nxproto\r\n$5\r\npwned\r\n"}},
	{name: "commands before it run", before: []string{"xbefore", "xbefore2"}, pieces: []string{
		"SET xbefore 1\r\n*3\r\n$3\r\nSET\r\n$8\r\nxbefore2\r\n$1\r\n1\r\nhost: evil.example\r\nSET xproto pwned\r\n"}},
}

// sendCrossProtocol writes the pieces to addr, one write each, and reads
// until the server closes the connection. It returns what the server sent
// first. Writes after the first may fail: the server may have closed the
// connection by then, as it should.
func sendCrossProtocol(t *testing.T, addr string, pieces []string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(15 * time.Second))
	for i, p := range pieces {
		if _, err := c.Write([]byte(p)); err != nil {
			if i == 0 {
				t.Fatal(err)
			}
			break
		}
	}
	got, err := io.ReadAll(c)
	// A close with input left unread resets the connection: closed too.
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("%s: the connection was not closed: %v after %q", addr, err, got)
	}
	return string(got)
}

// TestCrossProtocolRequestsClose: an HTTP request sent to the RESP port
// closes the connection at its POST or Host: line and runs nothing from
// there on, pipelined commands included, as on Redis 7.0; what came before
// it in the same read runs, with its replies dropped as Redis drops them.
// Run in both connection modes (QLESSD_ARGS="--event-loop no").
func TestCrossProtocolRequestsClose(t *testing.T) {
	q := StartQlessd(t, "")
	r := StartRedis(t)
	ctx := context.Background()
	for _, tc := range crossProtocolCases {
		for _, p := range []*Proc{q, r} {
			rdb := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2})
			if err := rdb.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if got := sendCrossProtocol(t, p.Addr, tc.pieces); got != "" {
				t.Errorf("%s on %s: the server sent %q before closing; Redis sends nothing", tc.name, p.Addr, got)
			}
			// Checked from another connection, once the attack's closed.
			if n := rdb.Exists(ctx, "xproto").Val(); n != 0 {
				t.Errorf("%s on %s: the key set after the attack exists", tc.name, p.Addr)
			}
			for _, k := range tc.before {
				if v, err := rdb.Get(ctx, k).Result(); v != "1" {
					t.Errorf("%s on %s: %s set before the attack: %q, %v", tc.name, p.Addr, k, v, err)
				}
			}
			if got := rdb.Ping(ctx).Val(); got != "PONG" {
				t.Errorf("%s on %s: the server stopped answering: %q", tc.name, p.Addr, got)
			}
			rdb.Close()
		}
	}
	for _, p := range []*Proc{q, r} {
		waitOutput(t, p, crossProtocolLine)
		// Logged at most once a minute, as Redis does, so that a page
		// sending requests in a loop cannot fill the log.
		if n := strings.Count(p.Output(), crossProtocolLine); n != 1 {
			t.Errorf("%s logged the warning %d times for %d attacks in well under a minute; want 1", p.Addr, n, len(crossProtocolCases))
		}
	}
}

// waitOutput waits until p has logged want.
func waitOutput(t *testing.T, p *Proc, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.Output(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %q; it logged:\n%s", p.Addr, want, p.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
