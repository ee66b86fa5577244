package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// resp3Pair is a Pair whose two connections have switched to RESP3.
func resp3Pair(t *testing.T) *Pair {
	t.Helper()
	p := StartPair(t)
	sameHello(t, p, "HELLO", "3")
	return p
}

// TestRESP3Replies sends the same commands to qlessd and Redis 7.0 after
// HELLO 3 and compares the bytes: maps, sets, doubles, nulls, arrays of
// pairs, errors and script results in RESP3's types.
func TestRESP3Replies(t *testing.T) {
	t.Parallel()
	p := resp3Pair(t)
	sameAll(t, p, [][]string{
		// nulls
		{"GET", "nokey"}, {"MGET", "nokey", "nokey"}, {"LPOP", "nokey"}, {"LPOP", "nokey", "2"},
		{"BLPOP", "nokey", "0.01"}, {"BZPOPMIN", "nokey", "0.01"}, {"ZMPOP", "1", "nokey", "MIN"},
		// maps
		{"HSET", "h", "f1", "v1", "f2", "v2"}, {"HGETALL", "h"}, {"HGETALL", "nokey"}, {"HKEYS", "h"}, {"HVALS", "h"},
		{"HGET", "h", "nofield"}, {"CONFIG", "GET", "maxclients"}, {"CONFIG", "GET", "nosuchparam"},
		{"SET", "a", "ohmytext"}, {"SET", "b", "mynewtext"}, {"LCS", "a", "b", "IDX", "MINMATCHLEN", "2", "WITHMATCHLEN"},
		// arrays of pairs
		{"HSET", "h1", "only", "v"}, {"HRANDFIELD", "h1", "1", "WITHVALUES"}, {"HRANDFIELD", "h1", "-2", "WITHVALUES"},
		{"HRANDFIELD", "h1", "-2"}, {"HRANDFIELD", "nokey", "2", "WITHVALUES"},
		// doubles
		{"ZADD", "z", "1.5", "a", "2", "b", "3.25", "c", "4", "d"}, {"ZSCORE", "z", "a"}, {"ZSCORE", "z", "none"},
		{"ZMSCORE", "z", "a", "none", "c"}, {"ZINCRBY", "z", "0.1", "a"}, {"ZADD", "z", "INCR", "1", "b"},
		{"ZADD", "z", "NX", "INCR", "1", "b"}, {"ZADD", "zi", "inf", "x", "-inf", "y"}, {"ZRANGE", "zi", "0", "-1", "WITHSCORES"},
		{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"ZRANGE", "z", "0", "-1"}, {"ZREVRANGE", "z", "0", "1", "WITHSCORES"},
		{"ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2"},
		{"ZUNION", "2", "z", "zi", "WITHSCORES"}, {"ZINTER", "1", "z", "WITHSCORES"}, {"ZDIFF", "2", "z", "zi", "WITHSCORES"},
		{"ZSCAN", "z", "0"}, {"ZADD", "z1", "7.5", "m"}, {"ZRANDMEMBER", "z1", "1", "WITHSCORES"},
		{"ZRANDMEMBER", "z1", "-2", "WITHSCORES"}, {"ZRANDMEMBER", "nokey", "2", "WITHSCORES"},
		{"ZPOPMIN", "z"}, {"ZPOPMIN", "z", "1"}, {"ZPOPMAX", "z", "0"}, {"ZPOPMIN", "nokey"}, {"ZPOPMIN", "nokey", "2"},
		{"BZPOPMAX", "z", "1"}, {"ZMPOP", "1", "z", "MIN", "COUNT", "5"},
		// sets
		{"SADD", "s1", "x"}, {"SMEMBERS", "s1"}, {"SMEMBERS", "nokey"}, {"SINTER", "s1", "nokey"}, {"SUNION", "s1", "nokey"},
		{"SDIFF", "s1", "nokey"}, {"SRANDMEMBER", "s1", "3"}, {"SRANDMEMBER", "s1", "-2"}, {"SPOP", "nokey", "2"},
		{"SPOP", "s1", "0"}, {"SMISMEMBER", "s1", "x", "y"}, {"SPOP", "s1", "3"},
		// errors, in RESP3 as in RESP2
		{"GET"}, {"HGETALL", "a"}, {"NOSUCHCOMMAND", "x"}, {"ZADD", "z", "nan", "x"},
		// transactions: the replies inside EXEC take RESP3's types too
		{"MULTI"}, {"HGETALL", "h"}, {"ZSCORE", "zi", "x"}, {"GET", "nokey"}, {"EXEC"},
		// scripts run under RESP2; their results are converted for the caller
		{"EVAL", "return {1, 'two', {3, false}, nil}", "0"},
		{"EVAL", "return redis.call('hgetall', KEYS[1])", "1", "h"},
		{"EVAL", "return redis.call('zscore', KEYS[1], 'x')", "1", "zi"},
		{"EVAL", "return nil", "0"}, {"EVAL", "return false", "0"}, {"EVAL", "return true", "0"},
		{"EVAL", "return {double=3.5}", "0"}, {"EVAL", "return {err='ERR oops'}", "0"}, {"EVAL", "return {ok='fine'}", "0"},
		{"EVAL", "return redis.pcall('hgetall', 'a')", "0"},
		{"EVAL", "return {map={k='v'}}", "0"}, {"EVAL", "return {set={k=true}}", "0"},
		{"EVAL", "return {big_number='123456789012345678901234567890'}", "0"},
		{"EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"},
		{"EVAL", "return {verbatim_string={format='markdown', string='*x*'}}", "0"},
		{"EVAL", "return {verbatim_string={format='', string='x'}}", "0"},
		{"EVAL", "return {verbatim_string={format='txt'}}", "0"},
		// redis.setresp(3): redis.call's replies come in RESP3's types
		{"SADD", "s2", "only"},
		{"EVAL", "redis.setresp(3); return redis.call('hgetall', 'h1')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('hgetall', 'h1')['map']['only']", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('smembers', 's2')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('zscore', 'z1', 'm')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('zrange', 'z1', 0, -1, 'withscores')", "0"},
		{"EVAL", "redis.setresp(3); return type(redis.call('get', 'nokey'))", "0"},
		{"EVAL", "redis.setresp(3); return {redis.call('get', 'nokey')}", "0"},
		{"EVAL", "redis.setresp(3); return {false, true}", "0"},
		{"EVAL", "redis.setresp(3); redis.setresp(2); return redis.call('hgetall', 'h1')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('config', 'get', 'maxclients')['map']['maxclients']", "0"},
		// RESET returns to RESP2, where the same results take RESP2's forms
		{"RESET"}, {"HGETALL", "h"}, {"GET", "nokey"}, {"ZSCORE", "zi", "x"},
		{"EVAL", "return {map={k='v'}}", "0"}, {"EVAL", "return {set={k=true}}", "0"}, {"EVAL", "return {double=3.5}", "0"},
		{"EVAL", "return {big_number='12345678901234567890'}", "0"},
		{"EVAL", "return {verbatim_string={format='txt', string='hi'}}", "0"},
		{"EVAL", "redis.setresp(3); return {false, true, redis.call('hgetall', 'h1'), redis.call('zscore', 'z1', 'm')}", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('get', 'nokey')", "0"},
	})
}

// TestRESP3Verbatim checks the shape of replies Redis sends as verbatim
// strings in RESP3 (INFO, CLIENT INFO): their text differs by design.
func TestRESP3Verbatim(t *testing.T) {
	t.Parallel()
	p := resp3Pair(t)
	for _, c := range [][]string{{"INFO", "server"}, {"CLIENT", "INFO"}, {"CLIENT", "LIST"}, {"MEMORY", "DOCTOR"}, {"LATENCY", "DOCTOR"}} {
		for name, raw := range map[string]*Raw{"qlessd": p.Q, "redis": p.R} {
			if got := raw.Do(t, c...); !strings.HasPrefix(got, "=") || !strings.Contains(got, "\r\ntxt:") {
				t.Errorf("%s %v: %q", name, c, got)
			}
		}
	}
	if got := p.Q.Do(t, "CLIENT", "INFO"); !strings.Contains(got, " resp=3\n") {
		t.Errorf("CLIENT INFO after HELLO 3: %q", got)
	}
}

// TestGoRedisRESP3 runs go-redis v9 with Protocol 3 against qlessd.
func TestGoRedisRESP3(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, Protocol: 3})
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("get: %q %v", v, err)
	}
	if err := rdb.Get(ctx, "nokey").Err(); err != redis.Nil {
		t.Fatalf("get of a missing key: %v", err)
	}
	if err := rdb.HSet(ctx, "h", "a", "1", "b", "2").Err(); err != nil {
		t.Fatal(err)
	}
	m, err := rdb.HGetAll(ctx, "h").Result()
	if err != nil || len(m) != 2 || m["a"] != "1" || m["b"] != "2" {
		t.Fatalf("hgetall: %v %v", m, err)
	}
	if err := rdb.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "m"}).Err(); err != nil {
		t.Fatal(err)
	}
	if s, err := rdb.ZScore(ctx, "z", "m").Result(); err != nil || s != 1.5 {
		t.Fatalf("zscore: %v %v", s, err)
	}
	zs, err := rdb.ZRangeWithScores(ctx, "z", 0, -1).Result()
	if err != nil || len(zs) != 1 || zs[0].Score != 1.5 || zs[0].Member != "m" {
		t.Fatalf("zrange withscores: %v %v", zs, err)
	}
}

// TestRESP3PubSub compares pub/sub after HELLO 3 with Redis 7.0: the
// confirmations and messages are push frames, and a subscribed RESP3
// connection may run any command.
func TestRESP3PubSub(t *testing.T) {
	t.Parallel()
	p := resp3Pair(t)
	pubQ, pubR := DialRaw(t, p.QP.Addr), DialRaw(t, p.RP.Addr)
	publish := func(args ...string) {
		t.Helper()
		if q, r := pubQ.Do(t, args...), pubR.Do(t, args...); q != r {
			t.Errorf("%s\n  qlessd: %q\n  redis:  %q", quoteArgs(args), q, r)
		}
	}
	// next compares the next frame each subscriber receives.
	next := func(what string) {
		t.Helper()
		if q, r := p.Q.Read(t), p.R.Read(t); q != r {
			t.Errorf("%s\n  qlessd: %q\n  redis:  %q", what, q, r)
		}
	}
	sameAll(t, p, [][]string{{"SUBSCRIBE", "ch", "ch2"}})
	next("second subscribe confirmation")
	sameAll(t, p, [][]string{{"PSUBSCRIBE", "c*"}, {"SSUBSCRIBE", "sh"}})
	publish("PUBLISH", "ch", "hello")
	next("message")
	next("pmessage")
	publish("SPUBLISH", "sh", "shard hello")
	next("smessage")
	// Any command runs while subscribed; PING is a plain PONG in RESP3.
	sameAll(t, p, [][]string{
		{"PING"}, {"PING", "x"}, {"SET", "k", "v"}, {"GET", "k"}, {"GET", "nokey"}, {"HSET", "h", "a", "1"}, {"HGETALL", "h"},
		{"EVAL", "return {map={k='v'}}", "0"},
	})
	publish("PUBLISH", "ch2", "again")
	next("message after other commands")
	next("pmessage after other commands")
	sameAll(t, p, [][]string{{"UNSUBSCRIBE", "ch"}, {"PUNSUBSCRIBE"}, {"SUNSUBSCRIBE"}})
	sameAll(t, p, [][]string{{"UNSUBSCRIBE"}})
	sameAll(t, p, [][]string{{"UNSUBSCRIBE"}, {"PUNSUBSCRIBE"}, {"GET", "k"}})
}

// TestRESP3HelloAuth logs in as an ACL user with HELLO 3 AUTH, and
// compares ACL GETUSER's map (its flags a set) with Redis 7.0.
func TestRESP3HelloAuth(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	sameAll(t, p, [][]string{{"ACL", "SETUSER", "alice", "on", ">pw", "~k*", "+get"}})
	sameHello(t, p, "HELLO", "3", "AUTH", "alice", "wrong")
	p.Same(t, "GET", "nokey") // still RESP2: the refused HELLO changed nothing
	sameHello(t, p, "HELLO", "3", "AUTH", "alice", "pw", "SETNAME", "a3")
	sameAll(t, p, [][]string{{"CLIENT", "GETNAME"}, {"GET", "k1"}, {"SET", "k1", "v"}, {"GET", "other"}})
	sameHello(t, p, "HELLO", "3", "AUTH", "default", "")
	sameAll(t, p, [][]string{{"ACL", "GETUSER", "alice"}, {"ACL", "GETUSER", "nobody"}, {"CLIENT", "GETNAME"}})
}
