package tests

import (
	"strings"
	"testing"
)

// zcmds runs each whitespace-separated command line on both servers; an
// argument of two single quotes is the empty string, and \s is a space.
func zcmds(t *testing.T, p *Pair, lines ...string) {
	t.Helper()
	for _, l := range lines {
		f := strings.Fields(l)
		for i, a := range f {
			if a == "''" {
				a = ""
			}
			f[i] = strings.ReplaceAll(a, `\s`, " ")
		}
		p.Same(t, f...)
	}
}

func TestZSetsAddAndScores(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD z 1 a 2 b 3 c", "ZADD z 1 a", "ZADD z CH 5 a 2 b 7 d", "ZRANGE z 0 -1 WITHSCORES",
		"ZADD z NX 10 a 11 e", "ZADD z XX 10 a 11 f", "ZADD z XX CH 10 a 11 f", "ZSCORE z a", "ZSCORE z f",
		"ZADD z GT CH 1 a 20 b", "ZADD z LT CH 1 a 30 c", "ZADD z GT LT 1 a", "ZADD z NX GT 1 a",
		"ZADD z NX LT 1 a", "ZADD z NX XX 1 a", "ZADD z XX GT CH 100 a 100 nope", "ZRANGE z 0 -1 WITHSCORES",
		"ZADD z INCR 5 a", "ZADD z INCR 5 a 6 b", "ZADD z INCR NX 5 a", "ZADD z INCR XX 5 newm",
		"ZADD z INCR GT -1 a", "ZADD z INCR LT -1 a", "ZADD z INCR XX 1 a", "ZADD z", "ZADD z 1",
		"ZADD z 1 a 2", "ZADD z nx", "ZADD z nx 1", "ZADD z 1 a x b", "ZADD z abc a", "ZADD z nan a",
		"ZADD z 1e400 a", "ZADD z 1e-400 a", "ZADD z '' a", `ZADD z \s1 a`, `ZADD z 1\s a`,
		"ZADD z2 inf a -inf b +inf c 1e308 d -1e308 e 1.5e3 f 0x10 g -0 h 1e-310 i 0.1 j 3.0000000000000004 k",
		"ZRANGE z2 0 -1 WITHSCORES", "ZSCORE z2 h", "ZINCRBY z2 -0 h", "ZINCRBY z2 1 nonexist",
		"ZINCRBY z2 1.5 nonexist", "ZINCRBY z2 -inf a", "ZINCRBY z2 inf b", "ZINCRBY z2 abc a",
		"ZINCRBY z2 nx a", "ZINCRBY newz -0 m", "ZSCORE newz m", "ZINCRBY z2 1e308 d", "ZINCRBY z2 1e308 d",
		"ZMSCORE z2 a b nope h", "ZMSCORE nokey a b", "ZMSCORE z2", "ZSCORE nokey a", "ZCARD z2", "ZCARD nokey",
		"ZREM z2 a b nope", "ZREM nokey a", "ZCARD z2", "ZREM z2 c d e f g h i j k", "EXISTS z2",
		"SET s v", "ZADD s 1 a", "ZINCRBY s 1 a", "ZSCORE s a", "ZMSCORE s a", "ZCARD s", "ZREM s a",
		"ZRANK s a", "ZADD z XX 1 a", "ZADD nokey XX 1 a", "EXISTS nokey", "ZADD nokey XX INCR 1 a", "EXISTS nokey",
		"ZADD z 1", "ZINCRBY z 1", "ZSCORE z", "ZCARD", "ZREM z",
	)
}

func TestZSetsRanks(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD z 1 a 1 b 1 c 2 d 2 '' 0 e -0 f -1 g",
		"ZRANGE z 0 -1 WITHSCORES", "ZRANK z a", "ZRANK z ''", "ZREVRANK z a", "ZREVRANK z g", "ZRANK z nope",
		"ZRANK nokey a", "ZRANGE z 2 4", "ZRANGE z -3 -1 WITHSCORES", "ZRANGE z -100 100", "ZRANGE z 5 3",
		"ZRANGE z 8 10", "ZRANGE z 0 0", "ZRANGE z -1 -1", "ZREVRANGE z 0 2 WITHSCORES", "ZREVRANGE z -2 -1",
		"ZRANGE z 0 -1 REV", "ZRANGE z 1 3 REV WITHSCORES", "ZRANGE z a b", "ZRANGE z 0 1 LIMIT 0 1",
		"ZREVRANGE z 0 1 LIMIT 0 1", "ZRANGE z 0 1 REV REV", "ZRANGE z 0 1 BYSCORE BYLEX", "ZRANGE z 0 1 bogus",
		"ZRANGE z 0 1 WITHSCORES WITHSCORES", "ZREVRANGE z 0 1 REV", "ZRANGE nokey 0 -1", "ZRANGE z 0 1 LIMIT 1",
		"ZRANGE z 0 1 LIMIT", "ZRANGE z 0 1 LIMIT a b", "ZRANGE z 0", "ZRANGE z 9223372036854775807 -9223372036854775808",
		"ZREMRANGEBYRANK z 0 1", "ZRANGE z 0 -1", "ZREMRANGEBYRANK z -2 -1", "ZRANGE z 0 -1",
		"ZREMRANGEBYRANK z 5 10", "ZREMRANGEBYRANK z a 1", "ZREMRANGEBYRANK nokey 0 1", "ZREMRANGEBYRANK z 0 -1",
		"EXISTS z", "SET s v", "ZRANGE s 0 1", "ZREMRANGEBYRANK s 0 1", "ZREVRANK s a",
	)
}

func TestZSetsScoreRanges(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD z -inf ninf -5 a 0 b 0 c 1 d 1 e 1.5 f 2 g 1e308 h inf pinf",
		"ZRANGEBYSCORE z -inf +inf WITHSCORES", "ZRANGEBYSCORE z (1 2", "ZRANGEBYSCORE z 1 (2",
		"ZRANGEBYSCORE z (1 (2", "ZRANGEBYSCORE z (-inf (inf", "ZRANGEBYSCORE z -inf -inf", "ZRANGEBYSCORE z inf inf",
		"ZRANGEBYSCORE z (1 (1", "ZRANGEBYSCORE z 1 1", "ZRANGEBYSCORE z 2 1", "ZRANGEBYSCORE z ( ''",
		"ZRANGEBYSCORE z '' 1", `ZRANGEBYSCORE z \s1 2`, `ZRANGEBYSCORE z 1\s 2`, "ZRANGEBYSCORE z 1e400 inf",
		"ZRANGEBYSCORE z -1e400 -1", "ZRANGEBYSCORE z 1e-400 1", "ZRANGEBYSCORE z 0x1 0x2", "ZRANGEBYSCORE z 1e0 2E0",
		"ZRANGEBYSCORE z nan 1", "ZRANGEBYSCORE z 1 (nan", "ZRANGEBYSCORE z a 1", "ZRANGEBYSCORE z ((1 2",
		"ZRANGEBYSCORE z -INF +Infinity", "ZRANGEBYSCORE z 0 1 LIMIT 1 2", "ZRANGEBYSCORE z 0 1 LIMIT 1 -1",
		"ZRANGEBYSCORE z 0 1 LIMIT -1 2", "ZRANGEBYSCORE z 0 1 LIMIT 0 0", "ZRANGEBYSCORE z -inf inf LIMIT 9 5",
		"ZRANGEBYSCORE z -inf inf LIMIT 10 5", "ZRANGEBYSCORE z 0 1 WITHSCORES LIMIT 1 2",
		"ZRANGEBYSCORE z 0 1 LIMIT 1 2 WITHSCORES", "ZRANGEBYSCORE z 0 1 LIMIT 1", "ZRANGEBYSCORE z 0 1 REV",
		"ZRANGEBYSCORE z 0 1 BYSCORE", "ZRANGEBYSCORE z 0 1 LIMIT x 1",
		"ZREVRANGEBYSCORE z +inf -inf WITHSCORES", "ZREVRANGEBYSCORE z 2 (1", "ZREVRANGEBYSCORE z (2 1 LIMIT 1 1",
		"ZREVRANGEBYSCORE z 1 2", "ZREVRANGEBYSCORE z inf -inf LIMIT 0 3 WITHSCORES",
		"ZRANGE z 0 1 BYSCORE", "ZRANGE z (0 +inf BYSCORE LIMIT 1 3 WITHSCORES", "ZRANGE z +inf 1 BYSCORE REV",
		"ZRANGE z 1 +inf BYSCORE REV", "ZRANGE z 1 +inf REV BYSCORE LIMIT 0 2",
		"ZCOUNT z -inf +inf", "ZCOUNT z (0 1", "ZCOUNT z 1 0", "ZCOUNT z a b", "ZCOUNT nokey 0 1", "ZCOUNT z (1 (1",
		"ZRANGEBYSCORE nokey 0 1", "ZRANGEBYSCORE nokey a 1", "ZREMRANGEBYSCORE z (0 1", "ZRANGE z 0 -1 WITHSCORES",
		"ZREMRANGEBYSCORE z x 1", "ZREMRANGEBYSCORE nokey 0 1", "ZREMRANGEBYSCORE z 5 1",
		"ZREMRANGEBYSCORE z -inf +inf", "EXISTS z", "SET s v", "ZRANGEBYSCORE s 0 1", "ZCOUNT s 0 1",
		"ZCOUNT s x 1", "ZREMRANGEBYSCORE s 0 1",
	)
}

func TestZSetsLexRanges(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD z 0 a 0 b 0 c 0 d 0 e 0 f 0 '' 0 aa 0 ab 0 b\x00",
		"ZRANGEBYLEX z - +", "ZRANGEBYLEX z [b [d", "ZRANGEBYLEX z (b (d", "ZRANGEBYLEX z [a (b",
		"ZRANGEBYLEX z ( +", "ZRANGEBYLEX z [ +", "ZRANGEBYLEX z - [", "ZRANGEBYLEX z - (", "ZRANGEBYLEX z + -",
		"ZRANGEBYLEX z - -", "ZRANGEBYLEX z + +", "ZRANGEBYLEX z [a [a", "ZRANGEBYLEX z (a [a", "ZRANGEBYLEX z [d [b",
		"ZRANGEBYLEX z a b", "ZRANGEBYLEX z [a b", "ZRANGEBYLEX z -a +", "ZRANGEBYLEX z - ++", "ZRANGEBYLEX z '' +",
		"ZRANGEBYLEX z - + LIMIT 2 3", "ZRANGEBYLEX z - + LIMIT -1 3", "ZRANGEBYLEX z - + LIMIT 2 -1",
		"ZRANGEBYLEX z - + LIMIT 20 1", "ZRANGEBYLEX z - + WITHSCORES", "ZRANGEBYLEX z - + LIMIT 0",
		"ZREVRANGEBYLEX z + -", "ZREVRANGEBYLEX z [d (a", "ZREVRANGEBYLEX z - +", "ZREVRANGEBYLEX z + - LIMIT 1 2",
		"ZRANGE z - + BYLEX", "ZRANGE z [c - BYLEX REV", "ZRANGE z - + BYLEX LIMIT 1 1", "ZRANGE z - + BYLEX WITHSCORES",
		"ZLEXCOUNT z - +", "ZLEXCOUNT z [b (e", "ZLEXCOUNT z (e [b", "ZLEXCOUNT z a b", "ZLEXCOUNT nokey - +",
		"ZREMRANGEBYLEX z [aa [ab", "ZRANGE z 0 -1", "ZREMRANGEBYLEX z x +", "ZREMRANGEBYLEX nokey - +",
		"ZREMRANGEBYLEX z - +", "EXISTS z",
		// Mixed scores: Redis walks a small set in score order.
		"ZADD m 1 c 2 a 3 d 4 b", "ZRANGEBYLEX m - +", "ZRANGEBYLEX m [b [d", "ZRANGEBYLEX m [a [c",
		"ZREVRANGEBYLEX m [c [a", "ZLEXCOUNT m [b +", "SET s v", "ZRANGEBYLEX s - +", "ZLEXCOUNT s - +",
		"ZREMRANGEBYLEX s - +",
	)
}

func TestZSetsRangeStore(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD src 1 a 2 b 3 c 4 d", "ZRANGESTORE dst src 0 1", "ZRANGE dst 0 -1 WITHSCORES",
		"ZRANGESTORE dst src 2 +inf BYSCORE", "ZRANGE dst 0 -1 WITHSCORES", "ZRANGESTORE dst src +inf 2 BYSCORE REV LIMIT 0 1",
		"ZRANGE dst 0 -1 WITHSCORES", "ZRANGESTORE dst src [a [b BYLEX", "ZRANGE dst 0 -1",
		"ZRANGESTORE dst src 5 10", "EXISTS dst", "SET dst x", "ZRANGESTORE dst src 0 0", "TYPE dst",
		"ZRANGESTORE dst nokey 0 -1", "EXISTS dst", "ZRANGESTORE dst src 0 -1 WITHSCORES",
		"ZRANGESTORE dst src 0 -1 LIMIT 0 1", "SET s v", "ZRANGESTORE dst s 0 -1", "ZRANGESTORE src src 1 2",
		"ZRANGE src 0 -1 WITHSCORES",
	)
}

func TestZSetsPops(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 0", "ZPOPMIN z -1",
		"ZPOPMIN z x", "ZPOPMIN z 1 2", "ZPOPMAX z 10", "EXISTS z", "ZPOPMIN nokey", "ZPOPMIN nokey 0",
		"SET s v", "ZPOPMIN s", "ZPOPMIN s 0", "ZPOPMIN s -1",
		"ZADD y 1 a 2 b 3 c", "ZMPOP 1 y MIN", "ZMPOP 2 nokey y MAX COUNT 5", "ZMPOP 1 y MIN", "ZMPOP 0 y MIN",
		"ZMPOP x y MIN", "ZMPOP 2 y MIN", "ZMPOP 1 y MID", "ZMPOP 1 y MIN COUNT 0", "ZMPOP 1 y MIN COUNT",
		"ZMPOP 1 y MIN COUNT 1 COUNT 1", "ZMPOP 1 s MIN", "ZMPOP 1 y",
		"ZADD q 1 a", "BZPOPMIN nokey q 0", "BZPOPMAX q 1", "BZPOPMIN s 0", "BZPOPMIN q -1", "BZPOPMIN q x",
		"BZMPOP 0.01 1 q MIN", "BZMPOP x 1 q MIN", "BZMPOP 0 0 q MIN", "ZADD q 2 b 3 c", "BZMPOP 0 1 q MAX COUNT 9",
		"BZPOPMIN q 0.01",
	)
}

func TestZSetsBlockingPop(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, pair := range []struct {
		blocker *Raw
		addr    string
	}{{p.Q, p.QP.Addr}, {p.R, p.RP.Addr}} {
		w := DialRaw(t, pair.addr)
		pair.blocker.Send(t, "BZPOPMIN", "a", "b", "0")
		w.Do(t, "PING") // let the blocker register first
		if got := w.Do(t, "ZADD", "b", "5", "x", "3", "y"); got != ":2\r\n" {
			t.Fatalf("zadd %q", got)
		}
		if got := pair.blocker.Read(t); got != "*3\r\n$1\r\nb\r\n$1\r\ny\r\n$1\r\n3\r\n" {
			t.Errorf("%s: bzpopmin served = %q", pair.addr, got)
		}
		pair.blocker.Send(t, "BZPOPMAX", "c", "0.2")
		if got := pair.blocker.Read(t); got != "*-1\r\n" {
			t.Errorf("%s: bzpopmax timeout = %q", pair.addr, got)
		}
		pair.blocker.Send(t, "BZMPOP", "0", "1", "d", "MAX", "COUNT", "2")
		w.Do(t, "PING")
		w.Do(t, "ZADD", "d", "1", "p", "2", "q", "3", "r")
		if got := pair.blocker.Read(t); got != "*2\r\n$1\r\nd\r\n*2\r\n*2\r\n$1\r\nr\r\n$1\r\n3\r\n*2\r\n$1\r\nq\r\n$1\r\n2\r\n" {
			t.Errorf("%s: bzmpop served = %q", pair.addr, got)
		}
	}
}

func TestZSetsAlgebra(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "ZADD c 0.1 x 0.2 y 0.7 z",
		"ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "ZINTERSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES",
		"ZUNIONSTORE d 3 a b c WEIGHTS 1 0.5 3", "ZRANGE d 0 -1 WITHSCORES", "ZUNIONSTORE d 3 c a b AGGREGATE MIN",
		"ZRANGE d 0 -1 WITHSCORES", "ZINTERSTORE d 3 a b c AGGREGATE MAX WEIGHTS 2 1 1", "ZRANGE d 0 -1 WITHSCORES",
		"ZUNION 3 a b c WITHSCORES", "ZUNION 3 c b a", "ZINTER 2 a c WITHSCORES", "ZINTER 2 a nokey WITHSCORES",
		"ZUNION 2 a nokey", "ZDIFF 2 b a WITHSCORES", "ZDIFF 2 a b", "ZDIFF 3 a b c", "ZDIFF 1 a WITHSCORES",
		"ZDIFFSTORE d 2 b a", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 2 a a", "EXISTS d",
		"ZDIFF 2 a b WEIGHTS 1 2", "ZDIFF 2 a b AGGREGATE SUM", "ZINTERCARD 2 a b", "ZINTERCARD 2 a b LIMIT 1",
		"ZINTERCARD 2 a b LIMIT -1", "ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 0 a", "ZINTERCARD 3 a b",
		"ZINTERCARD 2 a b WITHSCORES",
		"ZUNIONSTORE d 0 a", "ZUNIONSTORE d -1 a", "ZUNIONSTORE d x a", "ZUNIONSTORE d 3 a b",
		"ZUNIONSTORE d 2 a b WEIGHTS 1", "ZUNIONSTORE d 2 a b WEIGHTS 1 x", "ZUNIONSTORE d 2 a b WEIGHTS 1 nan",
		"ZUNIONSTORE d 2 a b AGGREGATE", "ZUNIONSTORE d 2 a b AGGREGATE AVG", "ZUNIONSTORE d 2 a b WITHSCORES",
		"ZUNION 0 a", "ZINTER 2 a b bogus", "ZUNIONSTORE d 2 nokey nokey2", "EXISTS d", "SET d str",
		"ZUNIONSTORE d 1 a", "TYPE d", "SET s v", "ZUNIONSTORE d 2 a s", "ZUNION 2 s a WEIGHTS x",
		"ZINTERSTORE d 2 a nokey", "EXISTS d",
		// inf arithmetic: inf + -inf is 0, 0 * inf is 0.
		"ZADD i1 inf m 1 n", "ZADD i2 -inf m inf n", "ZUNION 2 i1 i2 WITHSCORES", "ZINTER 2 i1 i2 WITHSCORES",
		"ZUNION 2 i1 i2 WEIGHTS 0 1 WITHSCORES", "ZINTER 2 i1 i2 WEIGHTS 0 1 WITHSCORES",
		"ZINTER 2 i1 i2 WEIGHTS 0 1 AGGREGATE MIN WITHSCORES", "ZINTER 2 i1 i2 AGGREGATE MAX WITHSCORES",
		// float sums depend on the order inputs are added in (smallest first).
		"ZADD f1 0.1 m", "ZADD f2 0.2 m 1 other", "ZADD f3 0.3 m 1 o1 2 o2", "ZUNION 3 f3 f2 f1 WITHSCORES",
		"ZINTER 3 f1 f3 f2 WITHSCORES", "ZUNION 3 f1 f2 f3 WEIGHTS 3 1e308 -1e308 WITHSCORES",
		"ZUNIONSTORE a 2 a b", "ZRANGE a 0 -1 WITHSCORES",
		"ZADD t1 0.1 m", "ZADD t2 0.2 m", "ZADD t3 0.3 m", "ZUNION 3 t1 t2 t3 WITHSCORES", "ZUNION 3 t3 t2 t1 WITHSCORES",
		"ZUNION 3 t2 t3 t1 WITHSCORES", "ZUNION 3 t3 t1 t2 WITHSCORES", "ZINTER 3 t3 t1 t2 WITHSCORES",
		"ZINTER 3 t1 t2 t3 WITHSCORES", "ZINTERSTORE t4 3 t3 t1 t2", "ZSCORE t4 m",
		"ZADD nz -0 x 0 y 1 w", "ZUNION 1 nz WEIGHTS -1 WITHSCORES", "ZUNIONSTORE nz2 1 nz WEIGHTS -1",
		"ZRANGE nz2 0 -1 WITHSCORES", "ZINTER 2 nz nz WEIGHTS -1 1 WITHSCORES",
	)
}

func TestZSetsScan(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD z 1 apple 2 banana 3 cherry 1.5 avocado 0 '' -0 zero inf big",
		"ZSCAN z 0", "ZSCAN z 0 MATCH a*", "ZSCAN z 0 MATCH *an* COUNT 1", "ZSCAN z 0 COUNT 0", "ZSCAN z 0 COUNT x",
		"ZSCAN z 0 MATCH", "ZSCAN z 0 bogus 1", "ZSCAN z x", "ZSCAN z -1", "ZSCAN z 18446744073709551616",
		"ZSCAN z 5", "ZSCAN nokey 0", "ZSCAN nokey 0 COUNT 0", "ZSCAN nokey x", "SET s v", "ZSCAN s 0",
		"ZSCAN z '' MATCH ?????", "ZSCAN z 0 MATCH [a-c]*", "ZSCAN z 0 MATCH [^a]*", "ZSCAN z 0 MATCH [c-a]*",
		"ZSCAN z 0 MATCH *[", "ZSCAN z 0 MATCH \\a*", "ZSCAN z 0 MATCH ***e*", "ZSCAN z 0 MATCH [\\b]*",
		"ZSCAN z 0 MATCH ''", "ZSCAN z 0 MATCH [a-", "ZSCAN z 0 MATCH apple\\", "ZSCAN z 0 MATCH [^]*",
		"ZSCAN z 0 MATCH *\\*", "ZSCAN z 0 MATCH [a-b-c]*", "ZSCAN z 0 MATCH ?", "ZSCAN z 0 MATCH *o", "ZSCAN z 0 MATCH **", "ZSCAN z 0 MATCH [a-]*",
		"ZADD w 1 a*b 2 a?b 3 a[b 4 a]b 5 \xff 6 a\\b", "ZSCAN w 0 MATCH a\\*b", "ZSCAN w 0 MATCH a[*?]b",
		"ZSCAN w 0 MATCH a[\\[]b", "ZSCAN w 0 MATCH a[]]b", "ZSCAN w 0 MATCH [a-\xff]*", "ZSCAN w 0 MATCH a\\\\b",
	)
}

func TestZSetsArity(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range []string{"zadd z 1", "zincrby z 1", "zrem z", "zscore z", "zmscore z", "zcard",
		"zcount z 1", "zlexcount z -", "zrange z 0", "zrangestore d z 0", "zrevrange z 0", "zrangebyscore z 0",
		"zrevrangebyscore z 0", "zrangebylex z -", "zrevrangebylex z -", "zrank z", "zrevrank z",
		"zremrangebyrank z 0", "zremrangebyscore z 0", "zremrangebylex z -", "zpopmin", "zpopmax",
		"bzpopmin z", "bzpopmax z", "zscan z", "zunionstore d 1", "zinterstore d 1", "zdiffstore d 1",
		"zunion 1", "zinter 1", "zdiff 1", "zintercard 1", "zmpop 1 z", "bzmpop 0 1 z"} {
		zcmds(t, p, c)
	}
}

func TestZSetsFloatForms(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD f 1E5 a +5 b .5 c 5. d -.5e-3 e 0X1P3 f infinity g -Infinity h INF i 123456789012345678 j 1e21 k",
		"ZRANGE f 0 -1 WITHSCORES", "ZINCRBY f 0.1 c", "ZINCRBY f 0.2 c", "ZINCRBY f 1e-17 j",
		"ZADD f 0x1p-1080 z", "ZADD f 0x z", "ZADD f 1e z", "ZADD f 1e+ z", "ZADD f - z", "ZADD f + z",
		"ZADD f 1_000 z", "ZADD f 0b1 z", "ZADD f infinit z", "ZADD f -nan z", "ZADD f 1.7976931348623157e308 z",
		"ZADD f 1.7976931348623159e308 z", "ZADD f 4.9e-324 y", "ZSCORE f y", "ZSCORE f z",
		"ZRANGEBYSCORE f (-inf (+inf", "ZRANGEBYSCORE f (-inf -inf", "ZRANGEBYSCORE f +inf (+inf",
		"ZRANGEBYSCORE f -inf (-inf", "ZRANGEBYSCORE f (inf +inf", "ZRANGEBYSCORE f 1e5 (1e5",
		"ZRANGEBYSCORE f 0X1P3 8", "ZRANGEBYSCORE f 0x8 0x8", "ZRANGEBYSCORE f (0x8 +inf", "ZRANGEBYSCORE f 0x 1",
		"ZRANGEBYSCORE f 1e 2", "ZRANGEBYSCORE f \\s \\s", "ZRANGEBYSCORE f \\s5 \\s\\s6", "ZRANGEBYSCORE f 5\\s 6",
		"ZRANGEBYSCORE f (\\s5 6", "ZRANGEBYSCORE f 1e-400 1e400", "ZRANGEBYSCORE f -nan 1", "ZRANGEBYSCORE f nan nan",
		"ZCOUNT f -1e400 1e400", "ZCOUNT f 1_0 2",
		"ZADD t 1 b 1 a 1 c 1 ab 1 aa 1 '' 1 B", "ZRANGE t 0 -1", "ZREVRANGE t 0 -1", "ZRANGEBYSCORE t 1 1 LIMIT 2 2",
		"ZREVRANGEBYSCORE t 1 1 LIMIT 2 2", "ZRANK t ab", "ZREVRANK t ab",
	)
}

// ZRANDMEMBER is random except where Redis is deterministic: one member,
// or a count covering the whole set (returned in order).
func TestZSetsRandMember(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	zcmds(t, p,
		"ZADD one 1.5 only", "ZADD three 3 c 1 a 2 b", "ZRANDMEMBER one", "ZRANDMEMBER one 1", "ZRANDMEMBER one -3",
		"ZRANDMEMBER one -2 WITHSCORES", "ZRANDMEMBER one 1 WITHSCORES", "ZRANDMEMBER three 3", "ZRANDMEMBER three 10 WITHSCORES",
		"ZRANDMEMBER three 0", "ZRANDMEMBER three 0 WITHSCORES", "ZRANDMEMBER nokey", "ZRANDMEMBER nokey 5",
		"ZRANDMEMBER nokey -5 WITHSCORES", "ZRANDMEMBER three x", "ZRANDMEMBER three 1 bogus", "ZRANDMEMBER three 1 WITHSCORES x",
		"ZRANDMEMBER three -9223372036854775808", "ZRANDMEMBER three 9223372036854775807 WITHSCORES",
		"ZRANDMEMBER three -4611686018427387904 WITHSCORES", "ZRANDMEMBER nokey x", "SET s v", "ZRANDMEMBER s",
		"ZRANDMEMBER s 1", "ZRANDMEMBER s x", "ZRANDMEMBER",
	)
	for _, c := range [][]string{{"ZRANDMEMBER", "three", "2"}, {"ZRANDMEMBER", "three", "-5", "WITHSCORES"}} {
		q, r := p.Q.Do(t, c...), p.R.Do(t, c...)
		if strings.Count(q, "\r\n") != strings.Count(r, "\r\n") || q[:4] != r[:4] {
			t.Errorf("%v: qlessd %q, redis %q", c, q, r)
		}
	}
}
