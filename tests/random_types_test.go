package tests

import (
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRandomDifferential sends the same seeded random command sequence to
// qlessd and to redis-server and compares every reply. QLESSD_SEED picks the
// seed and QLESSD_RANDOM_OPS the length (default 12000).
func TestRandomAllTypes(t *testing.T) {
	t.Parallel()
	seed := int64(20261122)
	if s := os.Getenv("QLESSD_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	ops := 12000
	if s := os.Getenv("QLESSD_RANDOM_OPS"); s != "" {
		ops, _ = strconv.Atoi(s)
	}
	t.Logf("seed %d, %d operations", seed, ops)
	p := StartPair(t)
	g := &gen{r: rand.New(rand.NewSource(seed))}
	var history []string
	for i := 0; i < ops; i++ {
		args, cmp := g.next()
		history = append(history, quoteArgs(args))
		q := p.Q.Do(t, args...)
		r := p.R.Do(t, args...)
		if cmp != nil {
			q, r = cmp(q), cmp(r)
		}
		if q != r {
			from := len(history) - 15
			if from < 0 {
				from = 0
			}
			t.Fatalf("op %d differs (seed %d)\n  last commands:\n    %s\n  qlessd: %q\n  redis:  %q",
				i, seed, strings.Join(history[from:], "\n    "), q, r)
		}
	}
}

type gen struct{ r *rand.Rand }

func (g *gen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// key draws from a small keyspace so that types collide and WRONGTYPE shows.
func (g *gen) key() string { return "k" + strconv.Itoa(g.r.Intn(8)) }

func (g *gen) val() string {
	switch g.r.Intn(8) {
	case 0:
		return strconv.Itoa(g.r.Intn(200) - 100)
	case 1:
		return g.pick("", " ", "1.5", "-0", "1e3", "inf", "abc", "\x00\xff", "9223372036854775807")
	case 2:
		return strings.Repeat("x", g.r.Intn(70))
	default:
		return g.pick("a", "b", "c", "d", "e", "f", "g", "h")
	}
}

func (g *gen) num() string {
	return g.pick(strconv.Itoa(g.r.Intn(20)-10), strconv.Itoa(g.r.Intn(3)), "-1", "0", "x", "1.5", "100")
}

func (g *gen) score() string {
	return g.pick(strconv.Itoa(g.r.Intn(10)), "1.5", "-2.25", "inf", "-inf", "1e3", "0")
}

func (g *gen) bound() string {
	return g.pick("-inf", "+inf", strconv.Itoa(g.r.Intn(10)), "("+strconv.Itoa(g.r.Intn(10)), "1.5", "(1.5", "x")
}

func (g *gen) lex() string {
	return g.pick("-", "+", "[a", "(b", "[c", "(d", "e", "[")
}

type cmpFn func(string) string

var sortedCmp cmpFn = SortedReply
var pairsCmp cmpFn = canonPairs

func (g *gen) next() ([]string, cmpFn) {
	k := g.key()
	switch g.r.Intn(6) {
	case 0:
		return g.stringOp(k), nil
	case 1:
		return g.keyOp(k)
	case 2:
		return g.hashOp(k)
	case 3:
		return g.listOp(k), nil
	case 4:
		return g.setOp(k)
	default:
		return g.zsetOp(k), nil
	}
}

func (g *gen) stringOp(k string) []string {
	switch g.r.Intn(14) {
	case 0:
		args := []string{"SET", k, g.val()}
		for _, o := range []string{"NX", "XX", "GET", "KEEPTTL", "EX"} {
			if g.r.Intn(6) == 0 {
				args = append(args, o)
				if o == "EX" {
					args = append(args, g.pick("100", "0", "-1", "x"))
				}
			}
		}
		return args
	case 1:
		return []string{"GET", k}
	case 2:
		return []string{"APPEND", k, g.val()}
	case 3:
		return []string{"INCR", k}
	case 4:
		return []string{"INCRBY", k, g.num()}
	case 5:
		return []string{"DECRBY", k, g.num()}
	case 6:
		return []string{"INCRBYFLOAT", k, g.pick("0.1", "1.5", "-3", "1e2", "x", "inf")}
	case 7:
		return []string{"STRLEN", k}
	case 8:
		return []string{"GETRANGE", k, g.num(), g.num()}
	case 9:
		return []string{"SETRANGE", k, g.pick("0", "3", "-1", "x"), g.val()}
	case 10:
		return []string{"MGET", k, g.key(), g.key()}
	case 11:
		return []string{"MSET", k, g.val(), g.key(), g.val()}
	case 12:
		return []string{"GETDEL", k}
	default:
		return []string{"SETNX", k, g.val()}
	}
}

func (g *gen) keyOp(k string) ([]string, cmpFn) {
	switch g.r.Intn(8) {
	case 0:
		return []string{"DEL", k, g.key()}, nil
	case 1:
		return []string{"EXISTS", k, g.key()}, nil
	case 2:
		return []string{"TYPE", k}, nil
	case 3:
		return []string{"EXPIRE", k, g.pick("1000", "0", "-5", "x")}, nil
	case 4:
		return []string{"PERSIST", k}, nil
	case 5:
		return []string{"RENAME", k, g.key()}, nil
	case 6:
		return []string{"RENAMENX", k, g.key()}, nil
	default:
		return []string{"KEYS", g.pick("*", "k[1-3]", "k?", "x*")}, sortedCmp
	}
}

func (g *gen) hashOp(k string) ([]string, cmpFn) {
	f := func() string { return g.pick("f1", "f2", "f3", "f4", "") }
	switch g.r.Intn(12) {
	case 0:
		return []string{"HSET", k, f(), g.val(), f(), g.val()}, nil
	case 1:
		return []string{"HGET", k, f()}, nil
	case 2:
		return []string{"HDEL", k, f(), f()}, nil
	case 3:
		return []string{"HLEN", k}, nil
	case 4:
		return []string{"HEXISTS", k, f()}, nil
	case 5:
		return []string{"HINCRBY", k, f(), g.num()}, nil
	case 6:
		return []string{"HINCRBYFLOAT", k, f(), g.pick("0.1", "2", "-1.5", "x")}, nil
	case 7:
		return []string{"HMGET", k, f(), f()}, nil
	case 8:
		return []string{"HSETNX", k, f(), g.val()}, nil
	case 9:
		return []string{"HSTRLEN", k, f()}, nil
	case 10:
		return []string{"HGETALL", k}, pairsCmp
	default:
		return []string{g.pick("HKEYS", "HVALS"), k}, sortedCmp
	}
}

func (g *gen) listOp(k string) []string {
	switch g.r.Intn(14) {
	case 0:
		return []string{"LPUSH", k, g.val(), g.val()}
	case 1:
		return []string{"RPUSH", k, g.val()}
	case 2:
		return []string{"LPOP", k}
	case 3:
		return []string{"RPOP", k, g.pick("1", "2", "0", "-1")}
	case 4:
		return []string{"LLEN", k}
	case 5:
		return []string{"LRANGE", k, g.num(), g.num()}
	case 6:
		return []string{"LINDEX", k, g.num()}
	case 7:
		return []string{"LSET", k, g.num(), g.val()}
	case 8:
		return []string{"LREM", k, g.num(), g.val()}
	case 9:
		return []string{"LTRIM", k, g.num(), g.num()}
	case 10:
		return []string{"LINSERT", k, g.pick("BEFORE", "AFTER", "x"), g.val(), g.val()}
	case 11:
		return []string{"LPOS", k, g.val()}
	case 12:
		return []string{"RPOPLPUSH", k, g.key()}
	default:
		return []string{"LMOVE", k, g.key(), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT")}
	}
}

func (g *gen) setOp(k string) ([]string, cmpFn) {
	m := func() string { return g.pick("a", "b", "c", "d", "1", "2", "10") }
	switch g.r.Intn(10) {
	case 0:
		return []string{"SADD", k, m(), m()}, nil
	case 1:
		return []string{"SREM", k, m()}, nil
	case 2:
		return []string{"SCARD", k}, nil
	case 3:
		return []string{"SISMEMBER", k, m()}, nil
	case 4:
		return []string{"SMEMBERS", k}, sortedCmp
	case 5:
		return []string{g.pick("SUNION", "SINTER", "SDIFF"), k, g.key()}, sortedCmp
	case 6:
		return []string{g.pick("SUNIONSTORE", "SINTERSTORE", "SDIFFSTORE"), g.key(), k, g.key()}, nil
	case 7:
		return []string{"SMOVE", k, g.key(), m()}, nil
	case 8:
		return []string{"SMISMEMBER", k, m(), m()}, nil
	default:
		return []string{"SADD", k, m()}, nil
	}
}

func (g *gen) zsetOp(k string) []string {
	m := func() string { return g.pick("a", "b", "c", "d", "e") }
	switch g.r.Intn(16) {
	case 0:
		args := []string{"ZADD", k}
		for _, o := range []string{"NX", "XX", "GT", "LT", "CH"} {
			if g.r.Intn(8) == 0 {
				args = append(args, o)
			}
		}
		return append(args, g.score(), m(), g.score(), m())
	case 1:
		return []string{"ZINCRBY", k, g.score(), m()}
	case 2:
		return []string{"ZREM", k, m()}
	case 3:
		return []string{"ZSCORE", k, m()}
	case 4:
		return []string{"ZCARD", k}
	case 5:
		return []string{"ZCOUNT", k, g.bound(), g.bound()}
	case 6:
		args := []string{"ZRANGE", k, g.num(), g.num()}
		if g.r.Intn(2) == 0 {
			args = append(args, "WITHSCORES")
		}
		return args
	case 7:
		args := []string{g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k, g.bound(), g.bound()}
		if g.r.Intn(2) == 0 {
			args = append(args, "WITHSCORES")
		}
		if g.r.Intn(2) == 0 {
			args = append(args, "LIMIT", g.num(), g.num())
		}
		return args
	case 8:
		return []string{g.pick("ZRANK", "ZREVRANK"), k, m()}
	case 9:
		return []string{"ZREMRANGEBYSCORE", k, g.bound(), g.bound()}
	case 10:
		return []string{"ZREMRANGEBYRANK", k, g.num(), g.num()}
	case 11:
		return []string{g.pick("ZPOPMIN", "ZPOPMAX"), k, g.pick("1", "2", "0", "-1")}
	case 12:
		return []string{g.pick("ZUNIONSTORE", "ZINTERSTORE"), g.key(), "2", k, g.key(), "AGGREGATE", g.pick("SUM", "MIN", "MAX")}
	case 13:
		return []string{g.pick("ZRANGEBYLEX", "ZLEXCOUNT"), k, g.lex(), g.lex()}
	case 14:
		return []string{"ZRANGE", k, g.bound(), g.bound(), "BYSCORE", "REV"}
	default:
		return []string{"ZMSCORE", k, m(), m()}
	}
}
