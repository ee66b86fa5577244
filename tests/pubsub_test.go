package tests

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// duo is one extra connection to each server of a Pair, for tests that
// need a subscriber beside the publishing connection.
type duo struct{ q, r *Raw }

func dialDuo(t *testing.T, p *Pair) duo {
	return duo{DialRaw(t, p.QP.Addr), DialRaw(t, p.RP.Addr)}
}

// same sends one command on both connections and compares the next n
// replies of each, byte for byte.
func (d duo) same(t *testing.T, n int, args ...string) {
	t.Helper()
	d.q.Send(t, args...)
	d.r.Send(t, args...)
	d.read(t, n, quoteArgs(args))
}

// read compares the next n replies without sending anything.
func (d duo) read(t *testing.T, n int, what string) {
	t.Helper()
	for i := 0; i < n; i++ {
		q, r := d.q.Read(t), d.r.Read(t)
		if q != r {
			t.Errorf("%s reply %d\n  qlessd: %q\n  redis:  %q", what, i, q, r)
		}
	}
}

func TestPubSubDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sub := dialDuo(t, p)
	sub.same(t, 2, "SUBSCRIBE", "a", "b")
	sub.same(t, 1, "SUBSCRIBE", "a") // again: no new subscription, same count
	sub.same(t, 2, "PSUBSCRIBE", "h?llo", "news.*")
	p.Same(t, "PUBLISH", "a", "m1")
	p.Same(t, "PUBLISH", "hello", "m2")
	p.Same(t, "PUBLISH", "news.tech", "m3")
	p.Same(t, "PUBLISH", "nobody", "m4")
	sub.read(t, 3, "messages")
	p.Same(t, "PUBSUB", "NUMSUB", "a", "b", "c")
	p.Same(t, "PUBSUB", "NUMSUB")
	p.Same(t, "PUBSUB", "NUMPAT")
	p.SameSorted(t, "PUBSUB", "CHANNELS")
	p.Same(t, "PUBSUB", "CHANNELS", "a*")
	for _, c := range [][]string{{"PUBSUB"}, {"PUBSUB", "nope"}, {"PUBSUB", "NUMPAT", "x"},
		{"PUBSUB", "CHANNELS", "a", "b"}, {"PUBSUB", "HELP"}, {"PUBSUB", "SHARDCHANNELS"}, {"PUBSUB", "SHARDNUMSUB", "a"},
		{"PUBLISH", "a"}, {"SUBSCRIBE"}, {"PSUBSCRIBE"}} {
		p.Same(t, c...)
	}
	// Other commands are refused in subscribe mode; PING answers as an array.
	sub.same(t, 1, "GET", "x")
	sub.same(t, 1, "set", "x", "y")
	sub.same(t, 1, "MULTI")
	sub.same(t, 1, "PING")
	sub.same(t, 1, "PING", "hi")
	sub.same(t, 1, "PING", "a", "b")
	sub.same(t, 1, "NOSUCH")
	// A channel and a matching pattern both count.
	sub.same(t, 1, "SUBSCRIBE", "news.1")
	p.Same(t, "PUBLISH", "news.1", "twice")
	sub.read(t, 2, "message + pmessage")
	sub.same(t, 3, "UNSUBSCRIBE", "a", "b", "zzz")
	sub.same(t, 1, "PUNSUBSCRIBE", "h?llo")
	sub.same(t, 1, "PUNSUBSCRIBE")
	sub.same(t, 1, "UNSUBSCRIBE")
	sub.same(t, 1, "UNSUBSCRIBE") // none left: null channel, count 0
	sub.same(t, 1, "PUNSUBSCRIBE")
	// Out of subscribe mode again.
	sub.same(t, 1, "PING")
	sub.same(t, 1, "GET", "x")
	p.Same(t, "PUBLISH", "a", "gone")
	// RESET leaves subscribe mode.
	sub.same(t, 2, "PSUBSCRIBE", "x*", "y*")
	sub.same(t, 1, "RESET")
	sub.same(t, 1, "PING")
	p.Same(t, "PUBSUB", "NUMPAT")
	// SUBSCRIBE queued in MULTI enters subscribe mode inside EXEC.
	sub.same(t, 1, "MULTI")
	sub.same(t, 1, "SUBSCRIBE", "m")
	sub.same(t, 1, "PING")
	sub.same(t, 1, "EXEC")
	sub.same(t, 1, "PING")
	p.Same(t, "PUBLISH", "m", "after exec")
	sub.read(t, 1, "message after EXEC")
	sub.same(t, 1, "UNSUBSCRIBE")
	// Shard channels: their own namespace and count, same subscribe mode.
	sub.same(t, 1, "SUNSUBSCRIBE")
	sub.same(t, 2, "SSUBSCRIBE", "s1", "s2")
	sub.same(t, 1, "SUBSCRIBE", "c")
	sub.same(t, 1, "SSUBSCRIBE", "s1")
	sub.same(t, 1, "GET", "x")
	sub.same(t, 1, "PING")
	p.Same(t, "SPUBLISH", "s1", "shard")
	p.Same(t, "PUBLISH", "s1", "not shard")
	p.Same(t, "SPUBLISH", "c", "not channel")
	p.Same(t, "PUBLISH", "c", "channel")
	sub.read(t, 2, "smessage, message")
	p.Same(t, "PUBSUB", "SHARDNUMSUB", "s1", "c")
	p.SameSorted(t, "PUBSUB", "SHARDCHANNELS")
	p.Same(t, "PUBSUB", "SHARDCHANNELS", "*2")
	p.Same(t, "PUBSUB", "NUMSUB", "s1", "c")
	sub.same(t, 1, "SUNSUBSCRIBE", "s1")
	sub.same(t, 1, "SUNSUBSCRIBE", "s2")
	sub.same(t, 1, "SUNSUBSCRIBE")
	sub.same(t, 1, "UNSUBSCRIBE")
	sub.same(t, 1, "SSUBSCRIBE", "z")
	sub.same(t, 1, "RESET")
	p.Same(t, "PUBSUB", "SHARDNUMSUB", "z")
	// QUIT is answered in subscribe mode, then the connection closes.
	sub.same(t, 1, "SUBSCRIBE", "last")
	sub.same(t, 1, "QUIT")
	expectClosed(t, sub.q)
	expectClosed(t, sub.r)
	p.Same(t, "PUBLISH", "last", "nobody")
}

// TestPubSubGlob compares pattern matching with Redis's stringmatchlen
// through PUBSUB CHANNELS.
func TestPubSubGlob(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sub := dialDuo(t, p)
	channels := []string{"a", "b", "abc", "ax", "bx", "dx", "by", "ay", "cy", "*x", "a\\", "ax\\", "[", "]", "aXbYc",
		"hello", "hallo", "hillo", "heello", "x", "a-b", "^x", "-", "ab", "abcabc", "\xe9t\xe9", "caT", "CAT"}
	sub.same(t, len(channels), append([]string{"SUBSCRIBE"}, channels...)...)
	for _, pat := range []string{"*", "a*", "*c", "a?c", "?", "??", "[abc]x", "[^a]x", "[a-c]y", "[c-a]y", "\\*x", "a\\",
		"a\\\\", "[", "[]", "[a", "[]]", "[\\]]", "a*b*c", "**", "h[ae]llo", "h[^e]llo", "h*llo", "*[", "[a-]", "[-a]",
		"\\", "a[b-", "[^]", "*a*a*a*b", "[\\-]", "[\xe0-\xff]t*", "c[A-Z]T", "[^]]", ""} {
		p.SameSorted(t, "PUBSUB", "CHANNELS", pat)
	}
	// Random patterns over the bytes that mean something to the matcher.
	rng := rand.New(rand.NewSource(7))
	gen := func(alphabet string, max int) string {
		b := make([]byte, rng.Intn(max+1))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(b)
	}
	var more []string
	for i := 0; i < 60; i++ {
		more = append(more, gen("ab-]\\^[*", 5))
	}
	sub.same(t, len(more), append([]string{"SUBSCRIBE"}, more...)...)
	for i := 0; i < 400; i++ {
		p.SameSorted(t, "PUBSUB", "CHANNELS", gen("ab-[]^\\*?", 7))
	}
}

// TestPubSubOrder checks that what a client publishes reaches subscribers
// in publish order, inside MULTI included, and before the publisher hears
// its reply.
func TestPubSubOrder(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sub := dialDuo(t, p)
	sub.same(t, 1, "SUBSCRIBE", "ch")
	sub.same(t, 1, "PSUBSCRIBE", "c*")
	p.Same(t, "MULTI")
	p.Same(t, "PUBLISH", "ch", "1")
	p.Same(t, "SET", "k", "v")
	p.Same(t, "PUBLISH", "ch", "2")
	p.Same(t, "PUBLISH", "cx", "3")
	p.Same(t, "PUBLISH", "ch", "4")
	p.Same(t, "EXEC")
	sub.read(t, 7, "messages from MULTI")
	// The publisher has its reply, so the message is already queued ahead
	// of anything the subscriber asks next.
	for i := 0; i < 20; i++ {
		p.Same(t, "PUBLISH", "ch", fmt.Sprint("n", i))
		sub.same(t, 3, "PING")
	}
	// A runtime error inside MULTI does not stop the later publishes.
	p.Same(t, "MULTI")
	p.Same(t, "PUBLISH", "ch", "before")
	p.Same(t, "SELECT", "99")
	p.Same(t, "PUBLISH", "ch", "after")
	p.Same(t, "EXEC")
	sub.read(t, 4, "messages around an error")
	// Pipelined publishes arrive in order.
	var cmds []string
	for i := 0; i < 50; i++ {
		cmds = append(cmds, fmt.Sprint("p", i))
	}
	for _, m := range cmds {
		p.Q.Send(t, "PUBLISH", "ch", m)
		p.R.Send(t, "PUBLISH", "ch", m)
	}
	for range cmds {
		if q, r := p.Q.Read(t), p.R.Read(t); q != r {
			t.Fatalf("pipelined publish: %q vs %q", q, r)
		}
	}
	sub.read(t, 100, "pipelined messages")
}

// TestSlowSubscriberDropped: a subscriber that stops reading must not
// slow publishers down, and is dropped once its output passes the limit.
func TestSlowSubscriberDropped(t *testing.T) {
	q := StartQlessd(t, "", "--client-output-buffer-limit", "pubsub 256kb 128kb 60")
	sub := DialRaw(t, q.Addr)
	if got := sub.Do(t, "SUBSCRIBE", "firehose"); !strings.Contains(got, "firehose") {
		t.Fatalf("subscribe: %q", got)
	}
	fast := DialRaw(t, q.Addr)
	fast.Do(t, "SUBSCRIBE", "firehose")
	stop := make(chan struct{})
	var fastGot atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a subscriber that keeps up
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			fast.c.SetReadDeadline(time.Now().Add(waitTimeout))
			var b strings.Builder
			if readReply(fast.rd, &b) != nil {
				return
			}
			fastGot.Add(1)
		}
	}()
	pub := DialRaw(t, q.Addr)
	payload := strings.Repeat("x", 10000)
	sent := 0
	for ; sent < 20000; sent++ {
		r := pub.Do(t, "PUBLISH", "firehose", payload)
		if r == ":1\r\n" {
			break // only the fast subscriber is left
		}
		if r != ":2\r\n" {
			t.Fatalf("publish %d: %q", sent, r)
		}
		// Pace on the reader that keeps up, so that on a busy machine it is
		// never the one left behind; the other one never reads at all.
		waitFor(t, &fastGot, int64(sent+1))
	}
	if sent == 20000 {
		t.Fatal("the subscriber that stopped reading was never dropped")
	}
	// The publisher keeps going at full speed.
	for i := 0; i < 200; i++ {
		if r := pub.Do(t, "PUBLISH", "firehose", payload); r != ":1\r\n" {
			t.Fatalf("publish after drop: %q", r)
		}
		waitFor(t, &fastGot, int64(sent+1+i+1))
	}
	if r := pub.Do(t, "PUBSUB", "NUMSUB", "firehose"); r != "*2\r\n$8\r\nfirehose\r\n:1\r\n" {
		t.Fatalf("numsub after drop: %q", r)
	}
	waitUntil(t, func() bool { return strings.Contains(q.Output(), "output buffer limits") })
	// The fast subscriber got everything.
	pub.Do(t, "PUBLISH", "firehose", "last")
	deadline := time.Now().Add(waitTimeout)
	for fastGot.Load() < int64(sent+1+200+1) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	fast.c.Close()
	wg.Wait()
	if want := int64(sent + 1 + 200 + 1); fastGot.Load() != want {
		t.Errorf("fast subscriber got %d messages, want %d", fastGot.Load(), want)
	}
	t.Logf("slow subscriber dropped after %d messages of %d bytes", sent, len(payload))
}

// TestSlowSubscriberSoftLimit: output that stays above the soft limit for
// its grace period gets the subscriber dropped even when nothing more is
// published.
func TestSlowSubscriberSoftLimit(t *testing.T) {
	q := StartQlessd(t, "", "--client-output-buffer-limit", "pubsub 0 64kb 1")
	sub := DialRaw(t, q.Addr)
	sub.Do(t, "SUBSCRIBE", "c")
	pub := DialRaw(t, q.Addr)
	payload := strings.Repeat("y", 64<<10)
	// Enough to fill the socket buffers and stay above 64kb in the queue.
	for i := 0; i < 400; i++ {
		if r := pub.Do(t, "PUBLISH", "c", payload); r == ":0\r\n" {
			break
		}
	}
	waitUntil(t, func() bool { return pub.Do(t, "PUBSUB", "NUMSUB", "c") == "*2\r\n$1\r\nc\r\n:0\r\n" })
	// The log line reaches us through the process's stderr pipe, a little
	// after the server has acted on it.
	waitUntil(t, func() bool { return strings.Contains(q.Output(), "output buffer limits") })
}

// TestPubSubChurn: clients subscribe, unsubscribe, reset and disconnect
// while others publish. Each subscriber checks its own replies stay in
// step, and when all are gone no subscription is left behind.
func TestPubSubChurn(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	var pubs, subs sync.WaitGroup
	stop := make(chan struct{})
	var published atomic.Int64
	for i := 0; i < 8; i++ {
		pubs.Add(1)
		go func(i int) {
			defer pubs.Done()
			pub := DialRaw(t, q.Addr)
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if r := pub.Do(t, "PUBLISH", fmt.Sprint("ch", n%5), "m"); !strings.HasPrefix(r, ":") {
					t.Errorf("publish: %q", r)
					return
				}
				published.Add(1)
			}
		}(i)
	}
	for i := 0; i < 24; i++ {
		subs.Add(1)
		go func(i int) {
			defer subs.Done()
			rng := rand.New(rand.NewSource(int64(i)))
			for round := 0; round < 15; round++ {
				c := DialRaw(t, q.Addr)
				c.Send(t, "SUBSCRIBE", "ch0", "ch1")
				c.Send(t, "PSUBSCRIBE", "ch*")
				c.Send(t, "UNSUBSCRIBE", "ch0")
				c.Send(t, "PING", "marker")
				// Replies in order, messages possibly between them.
				want := []string{"subscribe", "subscribe", "psubscribe", "unsubscribe", "marker"}
				for len(want) > 0 {
					r := c.Read(t)
					if strings.Contains(r, "message\r\n") {
						continue
					}
					if !strings.Contains(r, want[0]) {
						t.Errorf("client %d: got %q, want %s", i, r, want[0])
						return
					}
					want = want[1:]
				}
				switch rng.Intn(3) {
				case 0:
					c.Send(t, "RESET")
				case 1:
					c.Send(t, "UNSUBSCRIBE")
					c.Send(t, "PUNSUBSCRIBE")
				}
				c.c.Close()
			}
		}(i)
	}
	subs.Wait()
	close(stop)
	pubs.Wait()
	ctl := DialRaw(t, q.Addr)
	waitUntil(t, func() bool {
		return ctl.Do(t, "PUBSUB", "NUMPAT") == ":0\r\n" && ctl.Do(t, "PUBSUB", "CHANNELS") == "*0\r\n"
	})
	t.Logf("%d messages published during churn", published.Load())
}

// waitFor waits until n reaches want, failing after waitTimeout.
func waitFor(t *testing.T, n *atomic.Int64, want int64) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for n.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("counter stayed at %d, want %d", n.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
}
