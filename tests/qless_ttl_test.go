package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestQlessTTLExpiresUnpopped checks that a job whose TTL passes in a queue
// nobody pops is removed all the same (qlessd looks every second), with
// its expired event, and that its queue no longer counts it.
func TestQlessTTLExpiresUnpopped(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2})
	defer rdb.Close()
	ctx := context.Background()
	sub := rdb.Subscribe(ctx, "ql:log")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	rdb.Do(ctx, "QLESS", "put", "now", "p", "idle", "short", "K", "{}", "0", "ttl", "1")
	rdb.Do(ctx, "QLESS", "put", "now", "p", "idle", "long", "K", "{}", "0", "ttl", "3600")
	deadline := time.After(waitTimeout)
	for expired := false; !expired; {
		select {
		case m := <-sub.Channel():
			expired = strings.Contains(m.Payload, `"event":"expired"`) && strings.Contains(m.Payload, `"short"`)
		case <-deadline:
			t.Fatalf("no expired event for the job within %v", waitTimeout)
		}
	}
	if err := rdb.Do(ctx, "QLESS", "get", "now", "short").Err(); err != redis.Nil {
		t.Fatalf("expired job still there: %v", err)
	}
	if counts := rdb.Do(ctx, "QLESS", "queues", "now", "idle").Val().(string); !strings.Contains(counts, `"waiting":1`) {
		t.Fatalf("queue counts after the expiry: %s", counts)
	}
	// In another database too.
	db1 := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 2, DB: 1})
	defer db1.Close()
	db1.Do(ctx, "QLESS", "put", "now", "p", "idle", "short1", "K", "{}", "0", "ttl", "1")
	for end := time.Now().Add(waitTimeout); db1.Do(ctx, "QLESS", "get", "now", "short1").Err() != redis.Nil; {
		if time.Now().After(end) {
			t.Fatalf("a job in database 1 outlived its TTL of 1 s by %v", waitTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
