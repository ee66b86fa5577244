package tests

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestDifferentialBasics(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range [][]string{
		{"PING"}, {"PING", "hello"}, {"ECHO", "x"}, {"SET", "k", "v"}, {"GET", "k"}, {"GET", "nokey"},
		{"GET"}, {"NOSUCHCMD", "a", "b"}, {"EXISTS", "k", "k", "nokey"}, {"TYPE", "k"}, {"TYPE", "none"},
		{"DEL", "k", "nokey"}, {"DBSIZE"}, {"FLUSHDB"}, {"FLUSHALL", "bogus"},
	} {
		p.Same(t, c...)
	}
}

func TestGoRedisClient(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	if err := rdb.Set(ctx, "greeting", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	v, err := rdb.Get(ctx, "greeting").Result()
	if err != nil || v != "hello" {
		t.Fatalf("get = %q, %v", v, err)
	}
	if _, err := rdb.Get(ctx, "missing").Result(); err != redis.Nil {
		t.Fatalf("missing key: %v", err)
	}
}
