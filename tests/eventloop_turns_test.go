package tests

import (
	"fmt"
	"strings"
	"testing"
)

// More clients than the loop's io_uring has entries (128) send their
// pipelines before any reads a reply, so turns read and write them in
// several rounds of the ring: each gets its own replies, whole and in order,
// megabyte ones included, while one client left without reading.
func TestEventLoopManyClientsInOneTurn(t *testing.T) {
	t.Parallel()
	p := StartQlessd(t, "")
	const clients = 300
	big := strings.Repeat("b", 1<<20)
	conns := make([]*Raw, clients)
	for i := range conns {
		conns[i] = DialRaw(t, p.Addr)
	}
	gone := DialRaw(t, p.Addr)
	gone.Send(t, "SET", "gone", big)
	gone.Send(t, "GET", "gone")
	gone.c.Close()
	for i, c := range conns {
		key := fmt.Sprintf("k%d", i)
		c.Send(t, "SET", key, strings.Repeat("v", i))
		c.Send(t, "APPEND", key, "!")
		c.Send(t, "GET", key)
		if i%50 == 0 {
			c.Send(t, "SET", key+"big", big)
			c.Send(t, "GET", key+"big")
		}
		c.Send(t, "INCR", "n")
	}
	seen := map[string]bool{}
	for i, c := range conns {
		want := []string{"+OK\r\n", respInt(i + 1), respBulk(strings.Repeat("v", i) + "!")}
		if i%50 == 0 {
			want = append(want, "+OK\r\n", respBulk(big))
		}
		for j, w := range want {
			if got := c.Read(t); got != w {
				t.Fatalf("client %d, reply %d: %.60q, want %.60q", i, j, got, w)
			}
		}
		n := c.Read(t)
		if seen[n] {
			t.Fatalf("client %d: INCR gave %q twice", i, n)
		}
		seen[n] = true
	}
	if got := conns[0].Do(t, "GET", "n"); got != respBulk(fmt.Sprint(clients)) {
		t.Fatalf("GET n: %q", got)
	}
}
