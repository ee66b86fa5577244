package server

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

func testWaiter(ws *waiters, keys ...string) *waiter {
	req := &commands.BlockRequest{Keys: keys}
	w := newWaiter(nil, nil, nil, req, 0)
	ws.add(w)
	return w
}

func TestServeKeyInArrivalOrder(t *testing.T) {
	ws := newWaiters()
	k := store.KeyRef{Key: "k"}
	a, b, c := testWaiter(ws, "k", "k"), testWaiter(ws, "other", "k"), testWaiter(ws, "k")
	if len(a.keys) != 1 {
		t.Fatalf("a key given twice is queued once: %v", a.keys)
	}
	var order []*waiter
	left := 2 // elements in the key
	var out []handoff
	ws.serveKey(k, func() bool { return left > 0 }, func(w *waiter) ([]byte, bool) {
		order = append(order, w)
		if w == b {
			return nil, false // another type: b keeps waiting
		}
		left--
		return []byte("r"), true
	}, &out)
	if len(order) != 3 || order[0] != a || order[1] != b || order[2] != c {
		t.Fatalf("run order %v", order)
	}
	if len(out) != 2 || out[0].w != a || out[1].w != c {
		t.Fatalf("served %v", out)
	}
	if ws.blocked() != 1 || len(ws.byKey[k]) != 1 || ws.byKey[k][0] != b {
		t.Fatalf("left waiting: %d %v", ws.blocked(), ws.byKey)
	}
	// A served waiter cannot leave: its reply is owed to it.
	if ws.leave(a) {
		t.Fatal("a served waiter left")
	}
	deliver(out, nil)
	if r := <-a.done; string(r) != "r" {
		t.Fatalf("reply %q", r)
	}
	// Once the key is gone nobody further is run.
	ws.serveKey(store.KeyRef{Key: "other"}, func() bool { return false }, func(w *waiter) ([]byte, bool) {
		t.Fatal("ran a waiter for an absent key")
		return nil, false
	}, &out)
	if !ws.leave(b) || ws.blocked() != 0 || len(ws.byKey) != 0 {
		t.Fatalf("left behind: %d %v", ws.blocked(), ws.byKey)
	}
}

// A waiter leaving (timeout, disconnect) while a transaction serves it ends
// either served or gone, never both and never neither.
func TestServeOrLeaveExactlyOnce(t *testing.T) {
	ws := newWaiters()
	k := store.KeyRef{Key: "k"}
	servedCount, leftCount := 0, 0
	for i := 0; i < 2000; i++ {
		w := testWaiter(ws, "k")
		var out []handoff
		var leftOK bool
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			ws.serveKey(k, func() bool { return true }, func(*waiter) ([]byte, bool) {
				return []byte("v"), true
			}, &out)
		}()
		go func() {
			defer wg.Done()
			leftOK = ws.leave(w)
		}()
		wg.Wait()
		switch {
		case leftOK && len(out) == 0:
			leftCount++
		case !leftOK && len(out) == 1 && out[0].w == w:
			servedCount++
			deliver(out, nil)
			if r := <-w.done; string(r) != "v" {
				t.Fatalf("reply %q", r)
			}
		default:
			t.Fatalf("round %d: left=%v served=%d", i, leftOK, len(out))
		}
		if ws.blocked() != 0 || len(ws.byKey) != 0 {
			t.Fatalf("round %d: left behind %d %v", i, ws.blocked(), ws.byKey)
		}
	}
	t.Logf("served %d, left %d", servedCount, leftCount)
}

// testServer starts a server on a free loopback port.
func testServer(t *testing.T) *Server {
	t.Helper()
	return startServer(t, commands.Default(), false)
}

type testConn struct {
	c  net.Conn
	rd *bufio.Reader
}

func dialTest(t *testing.T, srv *Server) *testConn {
	t.Helper()
	c, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &testConn{c, bufio.NewReader(c)}
}

func (tc *testConn) send(args ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_, err := tc.c.Write([]byte(b.String()))
	return err
}

// read returns a reply's lines (enough for the flat replies used here).
func (tc *testConn) read() ([]string, error) {
	tc.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := tc.rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line[0] == '$' && line != "$-1" {
		data, err := tc.rd.ReadString('\n')
		return []string{line, strings.TrimSuffix(data, "\r\n")}, err
	}
	if line[0] != '*' || line == "*-1" {
		return []string{line}, nil
	}
	var n int
	fmt.Sscanf(line[1:], "%d", &n)
	out := []string{line}
	for i := 0; i < 2*n; i++ { // bulk strings: a length line and a data line
		l, err := tc.rd.ReadString('\n')
		if err != nil {
			return nil, err
		}
		out = append(out, strings.TrimSuffix(l, "\r\n"))
	}
	return out, nil
}

func (tc *testConn) do(t *testing.T, args ...string) []string {
	t.Helper()
	if err := tc.send(args...); err != nil {
		t.Fatal(err)
	}
	r, err := tc.read()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func waitCount(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a loaded machine may be slow
	for srv.BlockedClients() != n {
		if time.Now().After(deadline) {
			t.Fatalf("blocked clients %d, want %d", srv.BlockedClients(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Clients whose short timeouts keep expiring while pushes serve them: every
// element ends up popped by exactly one reply or still in the list, and
// each command gets exactly one reply (a PING after the loop answers PONG).
func TestServeRacesTimeout(t *testing.T) {
	srv := testServer(t)
	const consumers, rounds, pushes = 4, 150, 300
	var mu sync.Mutex
	popped := map[string]int{}
	errs := make(chan error, consumers+1)
	for i := 0; i < consumers; i++ {
		c := dialTest(t, srv)
		go func() {
			for n := 0; n < rounds; n++ {
				if err := c.send("BLPOP", "k", "0.001"); err != nil {
					errs <- err
					return
				}
				r, err := c.read()
				if err != nil {
					errs <- err
					return
				}
				if len(r) == 5 {
					mu.Lock()
					popped[r[4]]++
					mu.Unlock()
				} else if r[0] != "*-1" {
					errs <- fmt.Errorf("reply %q", r)
					return
				}
			}
			if err := c.send("PING"); err != nil {
				errs <- err
				return
			}
			r, err := c.read()
			if err == nil && r[0] != "+PONG" {
				err = fmt.Errorf("after the loop: %q (a reply too many)", r)
			}
			errs <- err
		}()
	}
	p := dialTest(t, srv)
	go func() {
		for n := 0; n < pushes; n++ {
			if err := p.send("RPUSH", "k", fmt.Sprint("e", n)); err != nil {
				errs <- err
				return
			}
			if _, err := p.read(); err != nil {
				errs <- err
				return
			}
			if n%8 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		errs <- nil
	}()
	for i := 0; i < consumers+1; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ctl := dialTest(t, srv)
	rest := ctl.do(t, "LRANGE", "k", "0", "-1")
	for i := 2; i < len(rest); i += 2 {
		popped[rest[i]]++
	}
	for n := 0; n < pushes; n++ {
		if c := popped[fmt.Sprint("e", n)]; c != 1 {
			t.Fatalf("e%d seen %d times", n, c)
		}
	}
	if len(popped) != pushes {
		t.Fatalf("%d distinct elements, pushed %d", len(popped), pushes)
	}
	waitCount(t, srv, 0)
}

// A client that hung up takes nothing, even when the push comes before the
// server's periodic check noticed; and a hang-up racing a push ends with the
// client gone from the queues either way.
func TestServeSkipsDepartedClient(t *testing.T) {
	srv := testServer(t)
	ctl, pusher := dialTest(t, srv), dialTest(t, srv)
	for round := 0; round < 5; round++ {
		a := dialTest(t, srv)
		a.send("BLPOP", "k", "0")
		waitCount(t, srv, 1)
		a.c.Close()
		pusher.do(t, "RPUSH", "k", "v")
		if r := ctl.do(t, "LPOP", "k"); len(r) != 2 || r[1] != "v" {
			t.Fatalf("round %d: a departed client took the element: %q", round, r)
		}
		waitCount(t, srv, 0)
	}
	for round := 0; round < 15; round++ {
		a := dialTest(t, srv)
		a.send("BRPOPLPUSH", "k", "d", "0")
		waitCount(t, srv, 1)
		done := make(chan struct{})
		go func() { a.c.Close(); close(done) }()
		pusher.do(t, "RPUSH", "k", "v")
		<-done
		waitCount(t, srv, 0)
		n := ctl.do(t, "LLEN", "k")[0]
		m := ctl.do(t, "LLEN", "d")[0]
		if !(n == ":1" && m == ":0" || n == ":0" && m == ":1") {
			t.Fatalf("round %d: LLEN k %s, d %s", round, n, m)
		}
		ctl.do(t, "DEL", "k", "d")
	}
	srv.waiters.mu.Lock()
	defer srv.waiters.mu.Unlock()
	if srv.waiters.count != 0 || len(srv.waiters.byKey) != 0 {
		t.Fatalf("left behind: %d %v", srv.waiters.count, srv.waiters.byKey)
	}
}

// Every command that may wait on keys must be a write command: only those
// are registered inside their own transaction, where no push can slip past.
// The keyless wait (WAIT) runs outside any transaction.
func TestKeyedBlockingCommandsWrite(t *testing.T) {
	n := 0
	for _, cmd := range commands.Default().All() {
		if cmd.Flags&commands.Blocking == 0 {
			continue
		}
		n++
		if cmd.Flags&commands.Write == 0 {
			t.Errorf("%s blocks but is not a write command", cmd.Name)
		}
	}
	if n < 8 {
		t.Fatalf("only %d blocking commands", n)
	}
}
