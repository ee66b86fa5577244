package tests

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

func respInt(n int) string     { return fmt.Sprintf(":%d\r\n", n) }
func respBulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
func respArray(elems ...string) string {
	return fmt.Sprintf("*%d\r\n", len(elems)) + strings.Join(elems, "")
}

// A client that stops reading while big replies wait must not hold up the
// others: the event loop keeps what the socket did not take and goes on.
func TestEventLoopSlowReaderDoesNotStallOthers(t *testing.T) {
	p := StartQlessd(t, "")
	big := strings.Repeat("v", 8<<20)
	setter := DialRaw(t, p.Addr)
	if got := setter.Do(t, "SET", "big", big); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	slow := DialRaw(t, p.Addr)
	for i := 0; i < 3; i++ {
		slow.Send(t, "GET", "big")
	}
	slow.Send(t, "STRLEN", "big")
	slow.Send(t, "QUIT")
	// 24 MB of replies now wait on the slow client's socket.
	other := DialRaw(t, p.Addr)
	for i := 1; i <= 50; i++ {
		if got := other.Do(t, "INCR", "n"); got != respInt(i) {
			t.Fatalf("INCR %d while another client does not read: %q", i, got)
		}
	}
	for i := 0; i < 3; i++ {
		if got := slow.Read(t); got != respBulk(big) {
			t.Fatalf("GET %d: %d bytes, want %d", i, len(got), len(respBulk(big)))
		}
	}
	if got := slow.Read(t); got != respInt(len(big)) {
		t.Fatalf("STRLEN: %q", got)
	}
	if got := slow.Read(t); got != "+OK\r\n" {
		t.Fatalf("QUIT: %q", got)
	}
	if _, err := slow.rd.ReadByte(); err != io.EOF {
		t.Fatalf("after QUIT's reply: %v, want the connection closed", err)
	}
}

// A client that sends commands and closes its side at once still gets
// every reply, even one that has to wait for a hand-over.
func TestEventLoopRunsWhatCameBeforeTheEnd(t *testing.T) {
	t.Parallel()
	p := StartQlessd(t, "")
	c := DialRaw(t, p.Addr)
	c.Send(t, "RPUSH", "l", "a", "b")
	c.Send(t, "BLPOP", "l", "1")
	c.Send(t, "LLEN", "l")
	if err := c.c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{respInt(2), respArray(respBulk("l"), respBulk("a")), respInt(1)} {
		if got := c.Read(t); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if _, err := c.rd.ReadByte(); err != io.EOF {
		t.Fatalf("after the replies: %v, want the connection closed", err)
	}
}

// Many clients pipelining at once, some of them leaving the loop mid-pipeline
// for a blocking pop: every reply comes back, in the order sent, and the
// commands after the blocking one run after it was served.
func TestEventLoopPipelinesAcrossAHandOver(t *testing.T) {
	t.Parallel()
	p := StartQlessd(t, "")
	const clients, each = 20, 40
	var wg sync.WaitGroup
	errs := make(chan string, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := DialRaw(t, p.Addr)
			key := fmt.Sprintf("ctr:%d", i)
			for j := 0; j < each; j++ {
				c.Send(t, "INCR", key)
			}
			blocking := i%2 == 0
			if blocking {
				c.Send(t, "BLPOP", fmt.Sprintf("q:%d", i), "10")
			}
			for j := 0; j < each; j++ {
				c.Send(t, "INCR", key)
				c.Send(t, "PING")
			}
			for j := 1; j <= each; j++ {
				if got := c.Read(t); got != respInt(j) {
					errs <- fmt.Sprintf("client %d INCR %d: %q", i, j, got)
					return
				}
			}
			if blocking {
				want := respArray(respBulk(fmt.Sprintf("q:%d", i)), respBulk(fmt.Sprintf("job-%d", i)))
				if got := c.Read(t); got != want {
					errs <- fmt.Sprintf("client %d BLPOP: %q, want %q", i, got, want)
					return
				}
			}
			for j := each + 1; j <= 2*each; j++ {
				if got := c.Read(t); got != respInt(j) {
					errs <- fmt.Sprintf("client %d INCR %d after: %q", i, j, got)
					return
				}
				if got := c.Read(t); got != "+PONG\r\n" {
					errs <- fmt.Sprintf("client %d PING: %q", i, got)
					return
				}
			}
		}(i)
	}
	pusher := redis.NewClient(&redis.Options{Addr: p.Addr})
	defer pusher.Close()
	ctx := context.Background()
	waitBlocked(t, DialRaw(t, p.Addr), clients/2) // the pushes wake them
	for i := 0; i < clients; i += 2 {
		if err := pusher.RPush(ctx, fmt.Sprintf("q:%d", i), fmt.Sprintf("job-%d", i)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A connection that graduated keeps its session: name, database and
// subscriptions work as before, and a publish from a loop connection
// reaches it.
func TestEventLoopHandOverKeepsTheSession(t *testing.T) {
	t.Parallel()
	p := StartQlessd(t, "")
	sub := DialRaw(t, p.Addr)
	sub.Send(t, "CLIENT", "SETNAME", "worker-1")
	sub.Send(t, "SELECT", "3")
	sub.Send(t, "SET", "k", "in-3")
	sub.Send(t, "SUBSCRIBE", "news")
	for _, want := range []string{"+OK\r\n", "+OK\r\n", "+OK\r\n", respArray(respBulk("subscribe"), respBulk("news"), respInt(1))} {
		if got := sub.Read(t); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	pub := DialRaw(t, p.Addr)
	list := pub.Do(t, "CLIENT", "LIST")
	if !strings.Contains(list, "name=worker-1 ") || !strings.Contains(list, "db=3 ") {
		t.Fatalf("CLIENT LIST lost the session: %s", list)
	}
	if got := pub.Do(t, "PUBLISH", "news", "hello"); got != respInt(1) {
		t.Fatalf("PUBLISH: %q", got)
	}
	if got, want := sub.Read(t), respArray(respBulk("message"), respBulk("news"), respBulk("hello")); got != want {
		t.Fatalf("message: %q", got)
	}
	sub.Send(t, "UNSUBSCRIBE")
	sub.Send(t, "GET", "k")
	if got, want := sub.Read(t), respArray(respBulk("unsubscribe"), respBulk("news"), respInt(0)); got != want {
		t.Fatalf("UNSUBSCRIBE: %q", got)
	}
	if got := sub.Read(t); got != respBulk("in-3") {
		t.Fatalf("GET in db 3 after the hand-over: %q", got)
	}
}
