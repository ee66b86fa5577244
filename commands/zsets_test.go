package commands_test

import (
	"testing"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
)

// runZ runs one command line, in MULTI when inMulti, and returns its reply
// and the block request it made, if any.
func runZ(t *testing.T, h *harness, inMulti bool, line string) (resp.Value, *commands.BlockRequest) {
	t.Helper()
	args, ok := resp.SplitArgs([]byte(line), nil)
	if !ok {
		t.Fatalf("bad line %q", line)
	}
	v, c := h.Run(args, func(c *commands.Ctx) { c.InMulti = inMulti })
	return v, c.Block
}

func TestBZPopBlocksOnlyWhereAllowed(t *testing.T) {
	h := newHarness(t)
	v, blk := runZ(t, h, false, "BZPOPMIN a b 1.5")
	if blk == nil || len(blk.Keys) != 2 || blk.Keys[1] != "b" || blk.Timeout.Milliseconds() != 1500 {
		t.Fatalf("block request %+v, reply %+v", blk, v)
	}
	v, blk = runZ(t, h, true, "BZPOPMIN a b 0")
	if blk != nil || v.Kind != resp.NullArray {
		t.Fatalf("in MULTI: block %+v reply %+v", blk, v)
	}
	v, blk = runZ(t, h, true, "BZMPOP 0 1 a MIN")
	if blk != nil || v.Kind != resp.NullArray {
		t.Fatalf("BZMPOP in MULTI: block %+v reply %+v", blk, v)
	}
	runZ(t, h, false, "ZADD b 2 x 1 y")
	v, blk = runZ(t, h, false, "BZPOPMAX a b 0")
	if blk != nil || len(v.Array) != 3 || v.Array[1].Str != "x" || v.Array[2].Str != "2" {
		t.Fatalf("served: block %+v reply %+v", blk, v)
	}
}

// Sorted-set commands: ZADD's options, the range forms, algebra with
// weights and aggregates, pops and the blocking pops where data is there.
var zsetsRows = group("zsets", []row{
	{"ZADD z 1 a 2 b 3 c", ":3"},
	{"ZADD z NX 10 a 4 d", ":1"},
	{"ZADD z XX CH 5 a 9 nosuch", ":1"},
	{"ZADD z GT CH 1 a", ":0"},
	{"ZADD z LT CH 1 a", ":1"},
	{"ZADD z INCR 2 b", `"4"`},
	{"ZADD z INCR 2 b 3 c", "-ERR INCR option supports a single increment-element pair"},
	{"ZADD z NX XX 1 a", "-ERR XX and NX options at the same time are not compatible"},
	{"ZADD z GT LT 1 a", "-ERR GT, LT, and/or NX options at the same time are not compatible"},
	{"ZADD z NX GT 1 a", "-ERR GT, LT, and/or NX options at the same time are not compatible"},
	{"ZADD z 1", "-ERR wrong number of arguments for 'zadd' command"},
	{"ZADD z abc a", "-ERR value is not a valid float"},
	{"ZADD z nan a", "-ERR value is not a valid float"},
	{"ZADD z", "-ERR wrong number of arguments for 'zadd' command"},
	{"ZCARD z", ":4"},
	{"ZCARD nosuch", ":0"},
	{"ZSCORE z a", `"1"`},
	{"ZSCORE z nosuch", "$-1"},
	{"ZMSCORE z a nosuch b", `["1" $-1 "4"]`},
	{"ZINCRBY z 1.5 a", `"2.5"`},
	{"ZINCRBY z abc a", "-ERR value is not a valid float"},
	{"ZINCRBY z -inf a", `"-inf"`},
	{"ZINCRBY z +inf a", "-ERR resulting score is not a number (NaN)"},
	{"ZADD inf +inf x", ":1"},
	{"ZINCRBY inf -inf x", "-ERR resulting score is not a number (NaN)"},
	{"ZRANGE z 0 -1 WITHSCORES", `["a" "-inf" "c" "3" "b" "4" "d" "4"]`},
	{"ZRANGE z 0 -1 REV", `["d" "b" "c" "a"]`},
	{"ZRANGE z (1 5 BYSCORE", `["c" "b" "d"]`},
	{"ZRANGE z -inf +inf BYSCORE LIMIT 1 2", `["c" "b"]`},
	{"ZRANGE z [a [c BYLEX", `["a" "c" "b"]`},
	{"ZRANGE z 0 -1 LIMIT 0 1", "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"},
	{"ZRANGE z a b BYSCORE", "-ERR min or max is not a float"},
	{"ZRANGE z a b BYLEX", "-ERR min or max not valid string range item"},
	{"ZRANGE z 0 -1 FOO", "-ERR syntax error"},
	{"ZRANGE z 5 1", "[]"},
	{"ZRANGE z -100 100", `["a" "c" "b" "d"]`},
	{"ZREVRANGE z 0 1 WITHSCORES", `["d" "4" "b" "4"]`},
	{"ZRANGEBYSCORE z 2 4 WITHSCORES", `["c" "3" "b" "4" "d" "4"]`},
	{"ZRANGEBYSCORE z -inf +inf LIMIT 1 1", `["c"]`},
	{"ZREVRANGEBYSCORE z +inf -inf", `["d" "b" "c" "a"]`},
	{"ZREVRANGEBYSCORE z 2 4", "[]"},
	{"ZADD lex 0 a 0 b 0 c 0 d", ":4"},
	{"ZRANGEBYLEX lex - +", `["a" "b" "c" "d"]`},
	{"ZRANGEBYLEX lex (a [c", `["b" "c"]`},
	{"ZREVRANGEBYLEX lex + - LIMIT 0 2", `["d" "c"]`},
	{"ZLEXCOUNT lex [b +", ":3"},
	{"ZLEXCOUNT lex a b", "-ERR min or max not valid string range item"},
	{"ZCOUNT z 2 (4", ":1"},
	{"ZCOUNT z x 1", "-ERR min or max is not a float"},
	{"ZRANK z c", ":1"},
	{"ZRANK z nosuch", "$-1"},
	{"ZREVRANK z c", ":2"},
	{"ZRANK nosuch a", "$-1"},
	{"ZREM z d nosuch", ":1"},
	{"ZREM nosuch a", ":0"},
	{"ZRANGESTORE dst z 0 1", ":2"},
	{"ZRANGE dst 0 -1 WITHSCORES", `["a" "-inf" "c" "3"]`},
	{"ZRANGESTORE dst nosuch 0 -1", ":0"},
	{"EXISTS dst", ":0"},
	{"ZADD u1 1 a 2 b", ":2"},
	{"ZADD u2 3 b 4 c", ":2"},
	{"ZUNION 2 u1 u2 WITHSCORES", `["a" "1" "c" "4" "b" "5"]`},
	{"ZUNION 2 u1 u2 WEIGHTS 2 1 AGGREGATE MAX WITHSCORES", `["a" "2" "b" "4" "c" "4"]`},
	{"ZINTER 2 u1 u2 WITHSCORES", `["b" "5"]`},
	{"ZINTER 2 u1 u2 AGGREGATE MIN WITHSCORES", `["b" "2"]`},
	{"ZDIFF 2 u1 u2 WITHSCORES", `["a" "1"]`},
	{"ZUNIONSTORE out 2 u1 u2", ":3"},
	{"ZINTERSTORE out 2 u1 u2", ":1"},
	{"ZDIFFSTORE out 2 u1 u2", ":1"},
	{"ZRANGE out 0 -1 WITHSCORES", `["a" "1"]`},
	{"ZINTERCARD 2 u1 u2", ":1"},
	{"ZINTERCARD 2 u1 u2 LIMIT 1", ":1"},
	{"ZINTERCARD 0 u1", "-ERR at least 1 input key is needed for 'zintercard' command"},
	{"ZUNION 0 u1", "-ERR at least 1 input key is needed for 'zunion' command"},
	{"ZUNION 3 u1 u2", "-ERR syntax error"},
	{"ZUNION 2 u1 u2 WEIGHTS 1", "-ERR syntax error"},
	{"ZUNION 2 u1 u2 AGGREGATE FOO", "-ERR syntax error"},
	{"SADD set a x", ":2"},
	{"ZUNION 2 u1 set WITHSCORES", `["x" "1" "a" "2" "b" "2"]`},
	{"ZREMRANGEBYRANK u2 0 0", ":1"},
	{"ZREMRANGEBYSCORE u1 -inf 1", ":1"},
	{"ZREMRANGEBYLEX lex [a [b", ":2"},
	{"ZRANGE lex 0 -1", `["c" "d"]`},
	{"ZPOPMIN u1", `["b" "2"]`},
	{"ZPOPMAX u2 5", `["c" "4"]`},
	{"ZPOPMIN nosuch", "[]"},
	{"ZPOPMIN u1 -1", "-ERR value is out of range, must be positive"},
	{"ZADD p 1 a 2 b 3 c", ":3"},
	{"ZMPOP 2 nosuch p MIN COUNT 2", `["p" [["a" "1"] ["b" "2"]]]`},
	{"ZMPOP 1 p MAX", `["p" [["c" "3"]]]`},
	{"ZMPOP 1 nosuch MIN", "*-1"},
	{"ZMPOP 0 p MIN", "-ERR numkeys should be greater than 0"},
	{"ZMPOP 1 p FOO", "-ERR syntax error"},
	{"ZADD bp 1 a 2 b 3 c", ":3"},
	{"BZPOPMIN nosuch bp 0", `["bp" "a" "1"]`},
	{"BZPOPMAX bp 0", `["bp" "c" "3"]`},
	{"BZMPOP 0 1 bp MIN", `["bp" [["b" "2"]]]`},
	{"BZPOPMIN bp -1", "-ERR timeout is negative"},
	{"ZADD one 5 m", ":1"},
	{"ZRANDMEMBER one", `"m"`},
	{"ZRANDMEMBER one -2 WITHSCORES", `["m" "5" "m" "5"]`},
	{"ZRANDMEMBER one 3", `["m"]`},
	{"ZRANDMEMBER nosuch", "$-1"},
	{"ZRANDMEMBER one abc", "-ERR value is not an integer or out of range"},
	{"SET str v", "+OK"},
	{"ZADD str 1 a", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZRANGE str 0 -1", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZSCORE str a", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZCARD str", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZUNIONSTORE out 2 u1 str", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZPOPMIN str", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZSCORE z", "-ERR wrong number of arguments for 'zscore' command"},
})

func TestZSetRows(t *testing.T) { runRows(t, zsetsRows) }
