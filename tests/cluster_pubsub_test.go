package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterEventsReachEveryNode subscribes to qless's events through
// each node of a cluster (followers relay the subscription to the leader)
// and checks that a put through one node reaches them all.
func TestClusterEventsReachEveryNode(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	c.leader(waitTimeout)
	ctx := context.Background()
	var subs []*redis.PubSub
	for _, n := range c.nodes {
		subs = append(subs, subscribeLog(t, n.addr()))
	}
	p := client(c.nodes[2].addr())
	defer p.Close()
	relayed := 0
	for _, n := range c.nodes {
		r, _ := strconv.Atoi(status(n)["relayed_clients"])
		relayed += r
	}
	if relayed < 2 {
		t.Fatalf("the two followers' subscribers (and more) are relayed, RAFT STATUS counts %d", relayed)
	}
	if err := p.Do(ctx, "QLESS", "put", "now", "", "q", "ev-1", "K", "{}", "0").Err(); err != nil {
		t.Fatal(err)
	}
	for i, s := range subs {
		rctx, cancel := context.WithTimeout(ctx, waitTimeout)
		m, err := s.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			t.Fatalf("subscriber through %s: %v", c.nodes[i].id, err)
		}
		if !strings.Contains(m.Payload, `"jid":"ev-1"`) || !strings.Contains(m.Payload, `"event":"put"`) {
			t.Fatalf("subscriber through %s got %q", c.nodes[i].id, m.Payload)
		}
	}
}

// TestClusterFollowerReadsSubscribers checks that with follower reads, a
// follower's own subscribers get what is published on the leader.
func TestClusterFollowerReadsSubscribers(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3, "--cluster-follower-reads", "yes")
	l := c.leader(waitTimeout)
	ctx := context.Background()
	var subs []*redis.PubSub
	var names []string
	for _, n := range c.nodes {
		if n == l {
			continue
		}
		subs, names = append(subs, subscribeLog(t, n.addr())), append(names, n.id)
	}
	p := client(l.addr())
	defer p.Close()
	// The follower subscribes on the leader in the background: put until
	// the first event arrives, then every later one must arrive too.
	chans := make([]<-chan *redis.Message, len(subs))
	for i, s := range subs {
		chans[i] = s.Channel()
	}
	put := func(jid string) {
		if err := p.Do(ctx, "QLESS", "put", "now", "", "q", jid, "K", "{}", "0").Err(); err != nil {
			t.Fatal(err)
		}
	}
	for i, ch := range chans {
		got := false
		for try, deadline := 0, time.Now().Add(waitTimeout); !got && time.Now().Before(deadline); try++ {
			put(fmt.Sprintf("ev-%d-%d", i, try))
			select {
			case m := <-ch:
				got = strings.Contains(m.Payload, `"event":"put"`)
			case <-time.After(100 * time.Millisecond):
			}
		}
		if !got {
			t.Fatalf("a subscriber on follower %s got no event put on the leader", names[i])
		}
	}
	put("ev-last")
	for i, ch := range chans {
		for found := false; !found; {
			select {
			case m := <-ch:
				found = strings.Contains(m.Payload, `"jid":"ev-last"`)
			case <-time.After(waitTimeout):
				t.Fatalf("subscriber on follower %s: no event for ev-last", names[i])
			}
		}
	}
}

// subscribeLog subscribes to qless's event channel through addr, closed
// when the test ends.
func subscribeLog(t *testing.T, addr string) *redis.PubSub {
	t.Helper()
	cl := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	s := cl.Subscribe(context.Background(), "ql:log")
	t.Cleanup(func() { s.Close(); cl.Close() })
	if _, err := s.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}
