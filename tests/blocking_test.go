package tests

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitBlocked waits until the server reports n blocked clients. A server
// without INFO blocked_clients gets a pause instead, long enough for a
// command sent on another connection to have reached its wait.
func waitBlocked(t *testing.T, ctl *Raw, n int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		r := ctl.Do(t, "INFO", "clients")
		i := strings.Index(r, "blocked_clients:")
		if i < 0 {
			time.Sleep(500 * time.Millisecond)
			return
		}
		rest := r[i+len("blocked_clients:"):]
		got, _ := strconv.Atoi(rest[:strings.IndexAny(rest, "\r\n")])
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocked_clients stayed %d, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// scenario runs the same steps against qlessd and redis-server and fails
// unless both transcripts match line for line.
func scenario(t *testing.T, run func(t *testing.T, addr string, log func(string))) {
	t.Helper()
	p := StartPair(t)
	var got [2][]string
	for i, addr := range []string{p.QP.Addr, p.RP.Addr} {
		run(t, addr, func(s string) { got[i] = append(got[i], s) })
	}
	if len(got[0]) != len(got[1]) {
		t.Fatalf("transcripts differ in length\n  qlessd: %q\n  redis:  %q", got[0], got[1])
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("step %d\n  qlessd: %q\n  redis:  %q", i, got[0][i], got[1][i])
		}
	}
}

func TestBlockingServedByPush(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		a, b := DialRaw(t, addr), DialRaw(t, addr)
		a.Send(t, "BLPOP", "k1", "k2", "0")
		waitBlocked(t, b, 1)
		log(b.Do(t, "RPUSH", "k2", "x", "y"))
		log(a.Read(t))
		log(b.Do(t, "LRANGE", "k2", "0", "-1"))
		// The connection is usable afterwards, and a second wait works too.
		a.Send(t, "BRPOP", "k3", "5")
		waitBlocked(t, b, 1)
		log(b.Do(t, "LPUSH", "k3", "p", "q"))
		log(a.Read(t))
		log(a.Do(t, "PING"))
	})
}

func TestBlockingTimeout(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		a, b := DialRaw(t, addr), DialRaw(t, addr)
		log(a.Do(t, "BLPOP", "none", "0.05"))
		log(a.Do(t, "BRPOP", "none", "other", "0.05"))
		log(a.Do(t, "BRPOPLPUSH", "none", "dst", "0.05"))
		log(a.Do(t, "BLMOVE", "none", "dst", "LEFT", "RIGHT", "0.05"))
		log(a.Do(t, "BLMPOP", "0.05", "2", "none", "other", "LEFT"))
		// A client that timed out takes nothing pushed later.
		log(b.Do(t, "RPUSH", "none", "x"))
		log(b.Do(t, "LRANGE", "none", "0", "-1"))
		log(b.Do(t, "EXISTS", "dst"))
	})
}

func TestBlockingArrivalOrder(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		ctl := DialRaw(t, addr)
		var cs []*Raw
		for i := 0; i < 3; i++ {
			c := DialRaw(t, addr)
			c.Send(t, "BLPOP", "q", "0")
			waitBlocked(t, ctl, i+1)
			cs = append(cs, c)
		}
		log(ctl.Do(t, "RPUSH", "q", "a", "b", "c", "d"))
		for _, c := range cs {
			log(c.Read(t))
		}
		log(ctl.Do(t, "LRANGE", "q", "0", "-1"))
		// One element per push, each to the next in line.
		for i := 0; i < 3; i++ {
			cs[i].Send(t, "BRPOP", "r", "0")
			waitBlocked(t, ctl, i+1)
		}
		for _, v := range []string{"1", "2", "3"} {
			log(ctl.Do(t, "LPUSH", "r", v))
		}
		for _, c := range cs {
			log(c.Read(t))
		}
	})
}

func TestBlockingMoveServed(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		a, b, ctl := DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr)
		a.Send(t, "BLMOVE", "src", "dst", "RIGHT", "LEFT", "0")
		waitBlocked(t, ctl, 1)
		b.Send(t, "BRPOPLPUSH", "dst", "final", "0")
		waitBlocked(t, ctl, 2)
		// One push moves the element on to dst and then on to final.
		log(ctl.Do(t, "RPUSH", "src", "x", "y"))
		log(a.Read(t))
		log(b.Read(t))
		for _, k := range []string{"src", "dst", "final"} {
			log(ctl.Do(t, "LRANGE", k, "0", "-1"))
		}
		a.Send(t, "BLMPOP", "0", "2", "m1", "m2", "RIGHT", "COUNT", "2")
		waitBlocked(t, ctl, 1)
		log(ctl.Do(t, "RPUSH", "m2", "1", "2", "3"))
		log(a.Read(t))
		log(ctl.Do(t, "LRANGE", "m2", "0", "-1"))
	})
}

func TestBlockingClosedClientTakesNothing(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		a, b, ctl := DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr)
		a.Send(t, "BLPOP", "k", "0")
		waitBlocked(t, ctl, 1)
		b.Send(t, "BLPOP", "k", "0")
		waitBlocked(t, ctl, 2)
		a.c.Close()
		waitBlocked(t, ctl, 1)
		log(ctl.Do(t, "RPUSH", "k", "x"))
		log(b.Read(t))
		log(ctl.Do(t, "LLEN", "k"))

		// Alone, a departed client leaves the element in the list.
		c := DialRaw(t, addr)
		c.Send(t, "BRPOPLPUSH", "k", "dst", "0")
		waitBlocked(t, ctl, 1)
		c.c.Close()
		waitBlocked(t, ctl, 0)
		log(ctl.Do(t, "RPUSH", "k", "y"))
		log(ctl.Do(t, "PING"))
		log(ctl.Do(t, "LRANGE", "k", "0", "-1"))
		log(ctl.Do(t, "EXISTS", "dst"))
	})
}

func TestBlockingWrongType(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		a, ctl := DialRaw(t, addr), DialRaw(t, addr)
		log(ctl.Do(t, "SET", "s", "str"))
		log(a.Do(t, "BLPOP", "s", "0"))
		log(a.Do(t, "BLPOP", "none", "s", "0"))
		log(a.Do(t, "BLMOVE", "s", "d", "LEFT", "LEFT", "0"))
		log(a.Do(t, "BLMPOP", "0", "1", "s", "LEFT"))
		// A key that turns into another type while a client waits on it
		// keeps the client waiting until it is a list again.
		a.Send(t, "BLPOP", "k", "0")
		waitBlocked(t, ctl, 1)
		log(ctl.Do(t, "SET", "k", "str"))
		log(ctl.Do(t, "DEL", "k"))
		log(ctl.Do(t, "RPUSH", "k", "v"))
		log(a.Read(t))
		// A destination of another type fails the move when it is served,
		// and the element stays in the source.
		a.Send(t, "BLMOVE", "src", "s", "LEFT", "LEFT", "0")
		waitBlocked(t, ctl, 1)
		log(ctl.Do(t, "RPUSH", "src", "e"))
		log(a.Read(t))
		log(ctl.Do(t, "LRANGE", "src", "0", "-1"))
	})
}

// A waiter of another kind does not keep a list from the client behind it.
func TestBlockingTimeoutAfterWrongTypeWake(t *testing.T) {
	t.Parallel()
	scenario(t, func(t *testing.T, addr string, log func(string)) {
		a, b, ctl := DialRaw(t, addr), DialRaw(t, addr), DialRaw(t, addr)
		// b blocks first, so a's timeout starts only once b waits, and it
		// is long enough (3 s) for the checks and the SET below to come
		// before it on a loaded machine: a must still be blocked then.
		b.Send(t, "BLPOP", "k", "0")
		waitBlocked(t, ctl, 1)
		a.Send(t, "BLPOP", "k", "3")
		waitBlocked(t, ctl, 2)
		log(ctl.Do(t, "SET", "k", "str"))
		log(a.Read(t))
		log(ctl.Do(t, "DEL", "k"))
		log(ctl.Do(t, "RPUSH", "k", "v"))
		log(b.Read(t))
	})
}

// A push right after a blocked client hung up, before the server's periodic
// check could notice, goes to the next client in line (qlessd only: Redis
// may see the push before the hang-up).
func TestBlockingHangUpThenPushAtOnce(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	b, ctl := DialRaw(t, q.Addr), DialRaw(t, q.Addr)
	for round := 0; round < 5; round++ {
		a := DialRaw(t, q.Addr)
		a.Send(t, "BLPOP", "k", "0")
		waitBlocked(t, ctl, 1)
		b.Send(t, "BLPOP", "k", "0")
		waitBlocked(t, ctl, 2)
		a.c.Close()
		v := "x" + strconv.Itoa(round)
		ctl.Do(t, "RPUSH", "k", v)
		if got, want := b.Read(t), "*2\r\n$1\r\nk\r\n$2\r\n"+v+"\r\n"; got != want {
			t.Fatalf("round %d: second client got %q, want %q", round, got, want)
		}
		if got := ctl.Do(t, "LLEN", "k"); got != ":0\r\n" {
			t.Fatalf("round %d: LLEN %q", round, got)
		}
	}
}

// Many clients popping and pushing at once: every element pushed is popped
// exactly once and no waiting client is left behind while data remains.
func TestBlockingStress(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	const consumers, pops, producers = 6, 40, 4
	pushes := consumers * pops / producers
	errs := make(chan error, consumers+producers)
	got := make(chan string, consumers*pops)
	dial := func() (net.Conn, *bufio.Reader, error) {
		c, err := net.DialTimeout("tcp", q.Addr, 5*time.Second)
		if err != nil {
			return nil, nil, err
		}
		return c, bufio.NewReader(c), nil
	}
	do := func(c net.Conn, rd *bufio.Reader, args ...string) (string, error) {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := c.Write([]byte(b.String())); err != nil {
			return "", err
		}
		c.SetReadDeadline(time.Now().Add(waitTimeout))
		var out strings.Builder
		err := readReply(rd, &out)
		return out.String(), err
	}
	for i := 0; i < consumers; i++ {
		go func(i int) {
			c, rd, err := dial()
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for n := 0; n < pops; n++ {
				keys := []string{"BLPOP", "k1", "k2", "0"}
				if (i+n)%3 == 0 {
					keys = []string{"BRPOP", "k2", "k1", "0"}
				}
				r, err := do(c, rd, keys...)
				if err != nil {
					errs <- fmt.Errorf("consumer %d pop %d: %v", i, n, err)
					return
				}
				got <- r
			}
			errs <- nil
		}(i)
	}
	for i := 0; i < producers; i++ {
		go func(i int) {
			c, rd, err := dial()
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for n := 0; n < pushes; n++ {
				key := "k2"
				if n%2 == 0 {
					key = "k1"
				}
				if _, err := do(c, rd, "RPUSH", key, fmt.Sprintf("p%d-%d", i, n)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(i)
	}
	for i := 0; i < consumers+producers; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ctl := DialRaw(t, q.Addr)
	seen := map[string]bool{}
	for i := 0; i < consumers*pops; i++ {
		r := <-got
		v := r[strings.LastIndex(r[:len(r)-2], "\n")+1 : len(r)-2]
		if seen[v] {
			t.Fatalf("%s popped twice", v)
		}
		seen[v] = true
	}
	for _, k := range []string{"k1", "k2"} {
		if r := ctl.Do(t, "LLEN", k); r != ":0\r\n" {
			t.Errorf("LLEN %s = %q", k, r)
		}
	}
}
