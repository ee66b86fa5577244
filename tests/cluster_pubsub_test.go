package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterEventsReachEveryNode subscribes to qless's events through
// each node of a cluster (followers relay the subscription to the leader)
// and checks that a put through one node reaches them all.
func TestClusterEventsReachEveryNode(t *testing.T) {
	c := startCluster(t, 3)
	c.leader(10 * time.Second)
	ctx := context.Background()
	var subs []*redis.PubSub
	for _, n := range c.nodes {
		cl := redis.NewClient(&redis.Options{Addr: n.addr(), Protocol: 2})
		defer cl.Close()
		s := cl.Subscribe(ctx, "ql:log")
		defer s.Close()
		if _, err := s.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	p := client(c.nodes[2].addr())
	defer p.Close()
	if err := p.Do(ctx, "QLESS", "put", "now", "", "q", "ev-1", "K", "{}", "0").Err(); err != nil {
		t.Fatal(err)
	}
	for i, s := range subs {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
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
