package tests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exchange sends in and then a sentinel command on a new connection, and
// returns every byte that came back until the sentinel's reply, or the
// connection's end, which closed then reports.
func exchange(t *testing.T, addr, in, sentinel, sentinelReply string) (out string, closed bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitTimeout))
	if _, err := c.Write([]byte(in + sentinel)); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 64<<10)
	for !bytes.HasSuffix(got, []byte(sentinelReply)) {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return string(got), true
		}
		if err != nil {
			t.Fatalf("%q: %v after %q", in, err, got)
		}
	}
	return strings.TrimSuffix(string(got), sentinelReply), false
}

// protocolInputs are requests, well or badly formed, that each leave the
// connection between commands or end it.
var protocolInputs = []string{
	"*0\r\n", "*-1\r\n", "*-2\r\n", "*1\r\n$4\r\nPING\r\n*0\r\n*1\r\n$4\r\nPING\r\n",
	"*x\r\n", "*\r\n", "*+1\r\n$4\r\nPING\r\n", "*01\r\n$04\r\nPING\r\n", "*1 \r\n$4\r\nPING\r\n", "*-0\r\n",
	"*99999999999999999999\r\n", "*2147483648\r\n", "*1\r\n+OK\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n:1\r\n",
	"*1\r\n\r\n", "*1\r\n$x\r\n", "*1\r\n$\r\n", "*1\r\n$-1\r\n", "*1\r\n$-0\r\n\r\n", "*1\r\n$ 4\r\nPING\r\n",
	"*1\r\n$+4\r\nPING\r\n", "*1\r\n$99999999999999999999\r\n", "*1\r\n$536870913\r\n",
	"*1\r\n$1\r\nab\r\n", "*1\r\n$4\r\nPINGxx", "*1\r\n$4\r\nPING\r\n\r\n", "*1\rX$4\r\nPING\r\n", "*1\r\n$4\rXPING\r\n",
	"PING\r\n", "\r\n\n  \t \r\nPING\r\n", "PING\rx\n", "set \"k\n", "set \"a\"b\r\n", "ECHO a\"b c\"\r\n",
	"ECHO \"a\\\"\r\n", "ECHO \"\\x41\\xZZ\\x4\\n\"\r\n", "ECHO 'a\\'b' \"a'b\"\r\n", "\"\"\r\n", "ECHO \va\vb\r\n",
}

// Requests read as redis-server reads them: the same replies, the same
// protocol errors, the connection closed after one.
func TestProtocolLikeRedis(t *testing.T) {
	t.Parallel()
	q, r := StartQlessd(t, ""), StartRedis(t)
	const sentinel, reply = "*2\r\n$4\r\nECHO\r\n$8\r\nsentinel\r\n", "$8\r\nsentinel\r\n"
	for _, in := range protocolInputs {
		qOut, qClosed := exchange(t, q.Addr, in, sentinel, reply)
		rOut, rClosed := exchange(t, r.Addr, in, sentinel, reply)
		if qOut != rOut || qClosed != rClosed {
			t.Errorf("%q:\n  qlessd: %q closed %v\n  redis:  %q closed %v", in, qOut, qClosed, rOut, rClosed)
		}
	}
}

// Until it authenticates a client may announce at most 10 arguments of at
// most 16384 bytes each, as on Redis 7.0; once AUTH has run, even earlier
// in the same pipeline, it may send more.
func TestProtocolLimitsBeforeAuth(t *testing.T) {
	t.Parallel()
	q, r := StartQlessd(t, "", "--requirepass", "secret"), StartRedis(t, "--requirepass", "secret")
	const sentinel, reply = "*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
	auth := "*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n"
	for _, in := range []string{
		"*10\r\n" + strings.Repeat("$1\r\nx\r\n", 10), "*11\r\n", "*1\r\n$16385\r\n", "*0\r\n*-5\r\nPING\r\n",
		"PING " + strings.Repeat("a ", 20) + "\r\n", "*1\r\n$1\r\nx\r\n*1\r\n$16385\r\n",
		auth + "*11\r\n$4\r\nECHO\r\n" + strings.Repeat("$1\r\nx\r\n", 10),
		auth + "*2\r\n$4\r\nECHO\r\n$16385\r\n" + strings.Repeat("y", 16385) + "\r\n",
	} {
		qOut, qClosed := exchange(t, q.Addr, in, sentinel, reply)
		rOut, rClosed := exchange(t, r.Addr, in, sentinel, reply)
		if qOut != rOut || qClosed != rClosed {
			t.Errorf("%.80q:\n  qlessd: %.200q closed %v\n  redis:  %.200q closed %v", in, qOut, qClosed, rOut, rClosed)
		}
	}
}

// sendRaw writes in on a new connection and returns all that comes back
// until the server closes it.
func sendRaw(t *testing.T, addr, in string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitTimeout))
	if _, err := c.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%.40q: %v after %q", in, err, got)
	}
	return string(got)
}

// A request past a limit is refused as soon as its announcement or its
// first 64 KB show it: nothing of it is kept, and the server goes on.
func TestProtocolLimits(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "", "--proto-max-bulk-len", "1mb")
	for _, c := range []struct{ in, want string }{
		{"*1\r\n$1048577\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*1\r\n$1073741824\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{strings.Repeat("x", 65537), "-ERR Protocol error: too big inline request\r\n"},
		{"*" + strings.Repeat("1", 65537), "-ERR Protocol error: too big mbulk count string\r\n"},
		{"*1\r\n$" + strings.Repeat("1", 65537), "-ERR Protocol error: too big bulk count string\r\n"},
	} {
		if got := sendRaw(t, q.Addr, c.in); got != c.want {
			t.Errorf("%.40q: %q, want %q", c.in, got, c.want)
		}
	}
	rc := DialRaw(t, q.Addr)
	big := strings.Repeat("v", 1<<20)
	if got := rc.Do(t, "SET", "k", big); got != "+OK\r\n" {
		t.Fatalf("SET of proto-max-bulk-len bytes: %q", got)
	}
	if got := rc.Do(t, "CONFIG", "SET", "proto-max-bulk-len", "2mb"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", got)
	}
	if got := rc.Do(t, "SET", "k", big+"w"); got != "+OK\r\n" {
		t.Fatalf("SET past the old limit: %q", got)
	}
	if got := rc.Do(t, "STRLEN", "k"); got != ":1048577\r\n" {
		t.Fatalf("STRLEN: %q", got)
	}
}

// A client whose unfinished command passes client-query-buffer-limit is
// closed without a word, as Redis closes it, and logged; the command does
// not run.
func TestClientQueryBufferLimit(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "", "--client-query-buffer-limit", "1mb", "--loglevel", "notice")
	c, err := net.DialTimeout("tcp", q.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitTimeout))
	go func() {
		// The server closes the connection while this still writes.
		c.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n" + strings.Repeat("v", 2000000) + "\r\n"))
	}()
	got, err := io.ReadAll(c)
	if len(got) > 0 || err != nil && !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("got %q, %v; want the connection closed", got, err)
	}
	rc := DialRaw(t, q.Addr)
	if got := rc.Do(t, "EXISTS", "k"); got != ":0\r\n" {
		t.Errorf("EXISTS k: %q", got)
	}
	waitLog(t, q, "Closing client that reached max query buffer length")
}

// waitLog waits for p to log what, which reaches the test through a pipe.
func waitLog(t *testing.T, p *Proc, what string) {
	t.Helper()
	for deadline := time.Now().Add(waitTimeout); !strings.Contains(p.Output(), what); {
		if time.Now().After(deadline) {
			t.Fatalf("no log of %q:\n%s", what, p.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isReset(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe"))
}

// An announced length is not allocated before the bytes come: a client
// announcing 512 MB and sending 4 costs the server little.
func TestAnnouncedBulkIsNotAllocated(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	before := rss(t, q)
	c, err := net.DialTimeout("tcp", q.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\n" + strings.Repeat("v", 4<<20)))
	rc := DialRaw(t, q.Addr)
	if got := rc.Do(t, "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING: %q", got)
	}
	if after := rss(t, q); after-before > 64<<20 {
		t.Errorf("RSS grew from %d to %d bytes", before, after)
	}
}

// rss is the resident size of p's process, from /proc.
func rss(t *testing.T, p *Proc) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// A command of millions of arguments, sent in small writes, is read on
// from where each write left it: another client is served meanwhile, and
// the command runs once whole.
func TestHugeMultibulkInSmallWrites(t *testing.T) {
	t.Parallel()
	const n = 1_000_000
	q := StartQlessd(t, "")
	other := DialRaw(t, q.Addr)
	if got := other.Do(t, "SET", "x", "1"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	big := DialRaw(t, q.Addr)
	big.c.SetWriteDeadline(time.Now().Add(60 * time.Second))
	send := func(b []byte) {
		for len(b) > 0 {
			m, err := big.c.Write(b[:min(len(b), 4096)])
			if err != nil {
				t.Fatal(err)
			}
			b = b[m:]
		}
	}
	send([]byte(fmt.Sprintf("*%d\r\n$6\r\nEXISTS\r\n", n+1)))
	chunk := bytes.Repeat([]byte("$1\r\nx\r\n"), n/10)
	for i := range 10 {
		send(chunk)
		if got := other.Do(t, "PING"); got != "+PONG\r\n" {
			t.Fatalf("PING after %d tenths: %q", i+1, got)
		}
	}
	if got := big.Read(t); got != ":"+strconv.Itoa(n)+"\r\n" {
		t.Fatalf("EXISTS: %q", got)
	}
}

// proto-max-bulk-len and client-query-buffer-limit are read and set as on
// Redis: memory units, 1mb at least.
func TestProtocolLimitsConfig(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, name := range []string{"proto-max-bulk-len", "client-query-buffer-limit"} {
		sameAll(t, p, [][]string{
			{"CONFIG", "GET", name}, {"CONFIG", "SET", name, "1000"}, {"CONFIG", "SET", name, "1048575"},
			{"CONFIG", "SET", name, "abc"}, {"CONFIG", "SET", name, "-1"}, {"CONFIG", "SET", name, "1.5mb"},
			{"CONFIG", "SET", name, "99999999999999999999"}, {"CONFIG", "SET", name, "9223372036854775807"},
			{"CONFIG", "GET", name}, {"CONFIG", "SET", name, "1mb"}, {"CONFIG", "GET", name},
			{"CONFIG", "SET", name, "3G"}, {"CONFIG", "GET", name}, {"CONFIG", "SET", name, "512mb"},
		})
	}
	p.SameSorted(t, "CONFIG", "GET", "proto-max-bulk-len", "client-query-buffer-limit")
}
