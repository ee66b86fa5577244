package tests

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/server"
)

func TestClientDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range [][]string{
		{"CLIENT"}, {"CLIENT", "FOO"}, {"CLIENT", "SETNAME"}, {"CLIENT", "SETNAME", "a", "b"}, {"CLIENT", "SETNAME", "a b"},
		{"CLIENT", "SETNAME", "caf\xe9"}, {"CLIENT", "GETNAME"}, {"CLIENT", "SETNAME", "worker-1"}, {"CLIENT", "GETNAME"},
		{"CLIENT", "SETNAME", ""}, {"CLIENT", "GETNAME"}, {"client", "getname", "x"}, {"CLIENT", "ID", "x"},
		{"CLIENT", "KILL"}, {"CLIENT", "KILL", "1.2.3.4:5"}, {"CLIENT", "KILL", "ID", "999999"}, {"CLIENT", "KILL", "ID", "x"},
		{"CLIENT", "KILL", "ID", "0"}, {"CLIENT", "KILL", "TYPE", "foo"}, {"CLIENT", "KILL", "foo", "bar"},
		{"CLIENT", "KILL", "ADDR", "1.2.3.4:5", "SKIPME", "maybe"}, {"CLIENT", "KILL", "ID", "1", "TYPE"},
		{"CLIENT", "KILL", "TYPE", "pubsub"}, {"CLIENT", "KILL", "ADDR", "1.2.3.4:5"}, {"CLIENT", "KILL", "USER", "nobody"},
		{"CLIENT", "LIST", "TYPE", "x"}, {"CLIENT", "LIST", "ID", "x"}, {"CLIENT", "LIST", "x"}, {"CLIENT", "LIST", "ID"},
		{"CLIENT", "LIST", "ID", "999999"}, {"CLIENT", "LIST", "TYPE", "pubsub"}, {"CLIENT", "LIST", "ID", "0"},
		{"CLIENT", "NO-EVICT", "on"}, {"CLIENT", "NO-EVICT", "off"}, {"CLIENT", "NO-EVICT", "x"}, {"CLIENT", "REPLY", "foo"},
		{"CLIENT", "HELP"}, {"CLIENT", "HELP", "x"}, {"CLIENT", "INFO", "x"},
		{"SELECT"}, {"SELECT", "x"}, {"SELECT", "16"}, {"SELECT", "-1"}, {"SELECT", "1.5"}, {"SELECT", "99999999999999999999"},
		{"SELECT", "15"}, {"SET", "in15", "v"}, {"SELECT", "0"}, {"GET", "in15"}, {"SELECT", "15"}, {"GET", "in15"},
		// RESET returns the connection to its state at connect
		{"CLIENT", "SETNAME", "n"}, {"MULTI"}, {"RESET"}, {"CLIENT", "GETNAME"}, {"GET", "in15"}, {"EXEC"}, {"RESET", "x"},
	} {
		p.Same(t, c...)
	}
}

// TestClientReply checks CLIENT REPLY OFF, SKIP and ON by what arrives.
func TestClientReply(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range [][]string{
		{"CLIENT", "REPLY", "OFF"}, {"SET", "a", "1"}, {"CLIENT", "REPLY", "SKIP"}, {"GET", "a"}, {"CLIENT", "REPLY", "ON"},
		{"CLIENT", "REPLY", "SKIP"}, {"GET", "a"}, {"ECHO", "seen"},
	} {
		p.Q.Send(t, c...)
		p.R.Send(t, c...)
	}
	for i := 0; i < 2; i++ {
		if q, r := p.Q.Read(t), p.R.Read(t); q != r {
			t.Errorf("reply %d: %q vs %q", i, q, r)
		}
	}
	p.Same(t, "GET", "a")
}

var clientLineRE = regexp.MustCompile(`^id=(\d+) addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name=(\S*) age=\d+ idle=\d+ ` +
	`flags=([A-Za-z]+) db=(\d+) sub=(\d+) psub=(\d+) ssub=\d+ multi=-1 qbuf=\d+ qbuf-free=\d+ argv-mem=\d+ multi-mem=\d+ ` +
	`rbs=\d+ rbp=\d+ obl=\d+ oll=\d+ omem=\d+ tot-mem=\d+ events=r cmd=(\S+) user=default redir=-1 resp=2$`)

func TestClientListAndKill(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	a, b, s := DialRaw(t, q.Addr), DialRaw(t, q.Addr), DialRaw(t, q.Addr)
	a.Do(t, "CLIENT", "SETNAME", "alpha")
	a.Do(t, "SELECT", "4")
	s.Do(t, "SUBSCRIBE", "c1")
	s.Do(t, "PSUBSCRIBE", "p*")
	idA := strings.Trim(a.Do(t, "CLIENT", "ID"), ":\r\n")
	idB := strings.Trim(b.Do(t, "CLIENT", "ID"), ":\r\n")
	// The subscriber's replies are written by its own goroutine, which
	// counts them out (omem, events=w) only once the write returns, a
	// moment after the client has them: list again until it has.
	list := bulkBody(t, a.Do(t, "CLIENT", "LIST"))
	for deadline := time.Now().Add(waitTimeout); strings.Contains(list, "events=rw") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		list = bulkBody(t, a.Do(t, "CLIENT", "LIST"))
	}
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("CLIENT LIST has %d lines:\n%s", len(lines), list)
	}
	seen := map[string][]string{}
	for _, l := range lines {
		m := clientLineRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("malformed CLIENT LIST line: %q", l)
		}
		seen[m[1]] = m[1:]
	}
	if f := seen[idA]; f == nil || f[1] != "alpha" || f[3] != "4" || f[6] != "client|list" || f[2] != "N" {
		t.Errorf("alpha's line: %v", f)
	}
	pubsubLine := bulkBody(t, b.Do(t, "CLIENT", "LIST", "TYPE", "pubsub"))
	if m := clientLineRE.FindStringSubmatch(strings.TrimSuffix(pubsubLine, "\n")); m == nil || m[3] != "P" || m[5] != "1" || m[6] != "1" {
		t.Errorf("subscriber's line: %q", pubsubLine)
	}
	info := bulkBody(t, b.Do(t, "CLIENT", "INFO"))
	if m := clientLineRE.FindStringSubmatch(strings.TrimSuffix(info, "\n")); m == nil || m[1] != idB || m[7] != "client|info" {
		t.Errorf("CLIENT INFO: %q", info)
	}
	if got := bulkBody(t, b.Do(t, "CLIENT", "LIST", "ID", idA, "999")); !strings.HasPrefix(got, "id="+idA+" ") || strings.Count(got, "\n") != 1 {
		t.Errorf("CLIENT LIST ID: %q", got)
	}

	// Inside EXEC the line still shows the transaction, as in Redis.
	b.Do(t, "MULTI")
	b.Do(t, "PING")
	b.Do(t, "CLIENT", "INFO")
	if got := b.Do(t, "EXEC"); !strings.Contains(got, " flags=x ") || !strings.Contains(got, " multi=2 ") {
		t.Errorf("CLIENT INFO in EXEC: %q", got)
	}
	// KILL ID, then the killed connection reads EOF.
	if got := b.Do(t, "CLIENT", "KILL", "ID", idA); got != ":1\r\n" {
		t.Fatalf("KILL ID: %q", got)
	}
	expectClosed(t, a)
	// KILL TYPE pubsub drops the subscriber.
	if got := b.Do(t, "CLIENT", "KILL", "TYPE", "pubsub"); got != ":1\r\n" {
		t.Fatalf("KILL TYPE pubsub: %q", got)
	}
	expectClosed(t, s)
	if got := b.Do(t, "PUBSUB", "NUMPAT"); got != ":0\r\n" {
		t.Errorf("patterns left after kill: %q", got)
	}
	// The old form by address, then killing oneself: OK, then closed.
	c := DialRaw(t, q.Addr)
	c.Do(t, "PING")
	addr := c.c.LocalAddr().String()
	if got := b.Do(t, "CLIENT", "KILL", addr); got != "+OK\r\n" {
		t.Fatalf("KILL addr: %q", got)
	}
	expectClosed(t, c)
	if got := b.Do(t, "CLIENT", "KILL", "ID", idB, "SKIPME", "no"); got != ":1\r\n" {
		t.Fatalf("KILL self: %q", got)
	}
	expectClosed(t, b)
}

// expectClosed fails unless the server closes r's connection.
func expectClosed(t *testing.T, r *Raw) {
	t.Helper()
	r.c.SetReadDeadline(time.Now().Add(waitTimeout))
	buf := make([]byte, 64)
	n, err := r.rd.Read(buf)
	// A server that closes a socket holding input it has not read (a
	// pipelined command it will not run) makes the kernel send a reset
	// instead of a FIN: closed all the same, with nothing more to read.
	if err != io.EOF && !(n == 0 && errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("connection not closed: read %q, %v", buf[:n], err)
	}
}

func TestMaxClients(t *testing.T) {
	t.Parallel()
	q, r := StartQlessd(t, "", "--maxclients", "3"), StartRedis(t, "--maxclients", "3")
	var first []*Raw
	for _, addr := range []string{q.Addr, r.Addr} {
		for i := 0; i < 3; i++ {
			c := DialRaw(t, addr)
			c.Do(t, "PING")
			if i == 0 {
				first = append(first, c)
			}
		}
	}
	qc, rc := DialRaw(t, q.Addr), DialRaw(t, r.Addr)
	qr, rr := qc.Read(t), rc.Read(t)
	if qr != rr || qr != "-ERR max number of clients reached\r\n" {
		t.Fatalf("4th client: qlessd %q, redis %q", qr, rr)
	}
	expectClosed(t, qc)
	// Both count the refusal, and CONFIG RESETSTAT forgets it.
	for i, c := range first {
		if info := c.Do(t, "INFO", "stats"); !strings.Contains(info, "rejected_connections:1\r\n") {
			t.Errorf("server %d after one refusal:\n%s", i, info)
		}
		c.Do(t, "CONFIG", "RESETSTAT")
		if info := c.Do(t, "INFO", "stats"); !strings.Contains(info, "rejected_connections:0\r\n") {
			t.Errorf("server %d after CONFIG RESETSTAT:\n%s", i, info)
		}
	}
}

func TestIdleTimeout(t *testing.T) {
	q := StartQlessd(t, "", "--timeout", "1")
	idle := DialRaw(t, q.Addr)
	idle.Do(t, "PING")
	sub := DialRaw(t, q.Addr)
	sub.Do(t, "SUBSCRIBE", "c")
	left := DialRaw(t, q.Addr) // subscribes, then leaves subscribe mode
	left.Do(t, "SUBSCRIBE", "c")
	left.Do(t, "UNSUBSCRIBE")
	expectClosed(t, idle)
	expectClosed(t, left)
	// Subscribers are exempt, as in Redis.
	time.Sleep(1500 * time.Millisecond)
	if got := DialRaw(t, q.Addr).Do(t, "PUBLISH", "c", "still here"); got != ":1\r\n" {
		t.Fatalf("publish: %q", got)
	}
	if got := sub.Read(t); !strings.Contains(got, "still here") {
		t.Fatalf("subscriber got %q", got)
	}
}

// startInProcess runs a server inside the test, for hooks and counters,
// served the way the started binary is (see modeArgs).
func startInProcess(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	cfg.Bind, cfg.Dir, cfg.ProtectedMode = "127.0.0.1", ":memory:", true
	cfg.EventLoop = !slices.Equal(modeArgs(), []string{"--event-loop", "no"})
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	srv, err := server.New(cfg, commands.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestOnDisconnect(t *testing.T) {
	t.Parallel()
	srv := startInProcess(t, server.Config{})
	gone := make(chan int64, 10)
	srv.OnDisconnect(func(id int64) { gone <- id })
	addr := srv.Addr().String()
	for _, subscribe := range []bool{false, true} {
		c := DialRaw(t, addr)
		id, _ := strconv.ParseInt(strings.Trim(c.Do(t, "CLIENT", "ID"), ":\r\n"), 10, 64)
		if subscribe {
			c.Do(t, "SUBSCRIBE", "x")
		}
		c.c.Close()
		select {
		case got := <-gone:
			if got != id {
				t.Fatalf("hook got id %d, want %d", got, id)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("no disconnect hook for client %d (subscribed %v)", id, subscribe)
		}
	}
}

// TestManyConnections: 1,000 clients at once, 900 pipelining commands and
// publishing, 100 subscribed. Every reply and message must arrive, and once
// all close the server is back to its goroutine count from before.
func TestManyConnections(t *testing.T) {
	q := StartQlessd(t, "")
	ctl := DialRaw(t, q.Addr)
	baseline := goroutines(t, ctl)
	const subs, workers, perWorker = 100, 900, 20
	var wg sync.WaitGroup
	var failures atomic.Int64
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 5 {
			t.Errorf(format, args...)
		}
	}
	subConns := make([]net.Conn, subs)
	ready := make(chan struct{}, subs)
	for i := 0; i < subs; i++ {
		c, err := net.Dial("tcp", q.Addr)
		if err != nil {
			t.Fatal(err)
		}
		subConns[i] = c
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			r := &Raw{c: c, rd: newReader(c)}
			r.Send(t, "SUBSCRIBE", "all", fmt.Sprint("own", i))
			r.Read(t)
			r.Read(t)
			ready <- struct{}{}
			got := map[string]bool{}
			own := 0
			for len(got)+own < workers+workers/subs {
				c.SetReadDeadline(time.Now().Add(60 * time.Second))
				var b strings.Builder
				if err := readReply(r.rd, &b); err != nil {
					fail("subscriber %d: %v after %d messages", i, err, len(got))
					return
				}
				msg := b.String()
				if strings.Contains(msg, "own") {
					own++
					continue
				}
				if got[msg] {
					fail("subscriber %d: duplicate %q", i, msg)
				}
				got[msg] = true
			}
		}(i, c)
	}
	for i := 0; i < subs; i++ {
		<-ready
	}
	workerConns := make([]net.Conn, workers)
	for i := 0; i < workers; i++ {
		c, err := net.Dial("tcp", q.Addr)
		if err != nil {
			t.Fatal(err)
		}
		workerConns[i] = c
	}
	for i, c := range workerConns {
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			var b strings.Builder
			var want []string
			for j := 0; j < perWorker; j++ {
				k, v := fmt.Sprintf("w%d:%d", i, j), fmt.Sprint("v", i*perWorker+j)
				writeCmd(&b, "SET", k, v)
				writeCmd(&b, "GET", k)
				want = append(want, "+OK\r\n", fmt.Sprintf("$%d\r\n%s\r\n", len(v), v))
			}
			writeCmd(&b, "PUBLISH", "all", fmt.Sprint("from", i))
			want = append(want, fmt.Sprintf(":%d\r\n", subs))
			writeCmd(&b, "PUBLISH", fmt.Sprint("own", i%subs), "x")
			want = append(want, ":1\r\n")
			c.SetWriteDeadline(time.Now().Add(60 * time.Second))
			if _, err := c.Write([]byte(b.String())); err != nil {
				fail("worker %d write: %v", i, err)
				return
			}
			rd := newReader(c)
			for n, w := range want {
				c.SetReadDeadline(time.Now().Add(60 * time.Second))
				var got strings.Builder
				if err := readReply(rd, &got); err != nil || got.String() != w {
					fail("worker %d reply %d: %q %v, want %q", i, n, got.String(), err, w)
					return
				}
			}
		}(i, c)
	}
	wg.Wait()
	for _, c := range append(subConns, workerConns...) {
		c.Close()
	}
	if failures.Load() > 0 {
		t.Fatalf("%d failures", failures.Load())
	}
	if got := ctl.Do(t, "DBSIZE"); got != fmt.Sprintf(":%d\r\n", workers*perWorker) {
		t.Errorf("DBSIZE = %q", got)
	}
	var now int
	waitUntil(t, func() bool { now = goroutines(t, ctl); return now <= baseline })
	t.Logf("goroutines: %d before, %d after 1,000 clients", baseline, now)
}

func goroutines(t *testing.T, r *Raw) int {
	t.Helper()
	got := r.Do(t, "DEBUG", "GOROUTINES")
	n, err := strconv.Atoi(strings.Trim(got, ":\r\n"))
	if err != nil {
		t.Fatalf("DEBUG GOROUTINES: %q", got)
	}
	return n
}

func writeCmd(b *strings.Builder, args ...string) {
	fmt.Fprintf(b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(b, "$%d\r\n%s\r\n", len(a), a)
	}
}

func newReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }
