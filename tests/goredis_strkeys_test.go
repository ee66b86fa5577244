package tests

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisKeysStringsServer uses a real client library the way an
// application would: its parsers must accept every reply.
func TestGoRedisKeysStringsServer(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	for i := 0; i < 1000; i++ {
		if err := rdb.Set(ctx, "item:"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	iter := rdb.Scan(ctx, 0, "item:*", 37).Iterator()
	for iter.Next(ctx) {
		seen[iter.Val()] = true
	}
	if err := iter.Err(); err != nil || len(seen) != 1000 {
		t.Fatalf("scan iterator: %d keys, %v", len(seen), err)
	}
	if v, err := rdb.IncrByFloat(ctx, "fl", 0.1).Result(); err != nil || v != 0.1 {
		t.Errorf("incrbyfloat %v %v", v, err)
	}
	if v, err := rdb.IncrByFloat(ctx, "fl", 0.1).Result(); err != nil || v != 0.2 {
		t.Errorf("incrbyfloat %v %v", v, err)
	}
	if err := rdb.SetArgs(ctx, "ttl", "a", redis.SetArgs{TTL: time.Minute}).Err(); err != nil {
		t.Fatal(err)
	}
	old, err := rdb.SetArgs(ctx, "ttl", "b", redis.SetArgs{KeepTTL: true, Get: true}).Result()
	if err != nil || old != "a" {
		t.Errorf("set keepttl get: %q %v", old, err)
	}
	if d, err := rdb.TTL(ctx, "ttl").Result(); err != nil || d <= 0 || d > time.Minute {
		t.Errorf("ttl %v %v", d, err)
	}
	if ok, err := rdb.ExpireNX(ctx, "ttl", time.Hour).Result(); err != nil || ok {
		t.Errorf("expire nx on a key with a ttl: %v %v", ok, err)
	}
	if ok, err := rdb.ExpireGT(ctx, "ttl", time.Hour).Result(); err != nil || !ok {
		t.Errorf("expire gt: %v %v", ok, err)
	}
	if ts, err := rdb.ExpireTime(ctx, "ttl").Result(); err != nil || ts < time.Duration(time.Now().Unix())*time.Second {
		t.Errorf("expiretime %v %v", ts, err)
	}
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 1002 {
		t.Errorf("dbsize %d %v", n, err)
	}
	info, err := rdb.Info(ctx, "server", "keyspace").Result()
	if err != nil || len(info) == 0 {
		t.Errorf("info %v", err)
	}
	cfg, err := rdb.ConfigGet(ctx, "*").Result()
	if err != nil || cfg["appendfsync"] != "everysec" || cfg["databases"] != "16" {
		t.Errorf("config get: %v %v", cfg, err)
	}
	cmds, err := rdb.Command(ctx).Result()
	if err != nil || cmds["get"] == nil || cmds["get"].Arity != 2 || !cmds["get"].ReadOnly || cmds["mset"].StepCount != 2 {
		t.Errorf("command: %v %v", cmds["get"], err)
	}
	if keys, err := rdb.Keys(ctx, "item:99?").Result(); err != nil || len(keys) != 10 {
		t.Errorf("keys item:99? = %d %v", len(keys), err)
	}
	if k, err := rdb.RandomKey(ctx).Result(); err != nil || k == "" {
		t.Errorf("randomkey %q %v", k, err)
	}
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := rdb.RandomKey(ctx).Result(); err != redis.Nil {
		t.Errorf("randomkey on empty: %v", err)
	}
}
