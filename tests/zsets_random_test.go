package tests

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// TestZSetsRandomized sends a seeded stream of random sorted-set commands
// (valid and invalid) to both servers and compares every reply. Sets stay
// under 128 members so Redis keeps them as listpacks throughout, whose
// -0 handling and mixed-score lex walks qlessd reproduces. ZSEED picks
// another stream and ZN its length (default 3000) for longer hunts.
func TestZSetsRandomized(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	seed, _ := strconv.ParseUint(os.Getenv("ZSEED"), 10, 64)
	rng := rand.New(rand.NewPCG(7+seed, 2026))
	g := zgen{r: rng}
	p.Same(t, "SET", "str", "v")
	n := 3000
	if s := os.Getenv("ZN"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for i := 0; i < n; i++ {
		p.Same(t, g.command()...)
		if t.Failed() {
			return
		}
	}
}

// TestZSetsRandomizedLarge does the same on sets past 128 members (Redis
// skiplists), leaving out what Redis leaves to the encoding there: -0
// scores, lex ranges over mixed scores, ZSCAN order and random picks.
func TestZSetsRandomizedLarge(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	seed, _ := strconv.ParseUint(os.Getenv("ZSEED"), 10, 64)
	g := zgen{r: rand.New(rand.NewPCG(11+seed, 2026)), large: true}
	p.Same(t, "SET", "str", "v")
	for _, k := range []string{"z1", "z2", "z3"} {
		args := []string{"ZADD", k}
		for i := 0; i < 200; i++ {
			args = append(args, g.score(), g.member())
		}
		p.Same(t, args...)
	}
	n := 2000
	if s := os.Getenv("ZN"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	for i := 0; i < n; i++ {
		c := g.command()
		switch c[0] {
		case "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX", "ZSCAN", "ZRANDMEMBER":
			continue
		case "ZRANGE":
			if len(c) > 4 && c[4] == "BYLEX" {
				continue
			}
		}
		p.Same(t, c...)
		if t.Failed() {
			return
		}
	}
}

type zgen struct {
	r     *rand.Rand
	large bool
}

func (g zgen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g zgen) key() string { return g.pick("z1", "z2", "z3", "z1", "z2", "nokey", "str") }

func (g zgen) member() string {
	if g.large {
		return "m" + strconv.Itoa(g.r.IntN(300))
	}
	return g.pick("a", "b", "c", "d", "e", "f", "g", "aa", "ab", "", "B", "a\x00")
}

func (g zgen) score() string {
	if g.large {
		return g.pick("0", "1", "2", "3", "-1", "1.5", "inf", "-inf", "0.1", "10", "7", "1e308", "bad")
	}
	return g.pick("0", "1", "2", "2", "3", "-1", "1.5", "-0", "inf", "-inf", "0.1", "0.2", "1e308", "-2.5e-3",
		"10", "7", "bad", "nan")
}

func (g zgen) bound() string {
	b := g.pick("0", "1", "2", "3", "-1", "1.5", "inf", "-inf", "+inf", "10", "-0", "0.1", "x")
	if g.r.IntN(3) == 0 {
		b = "(" + b
	}
	return b
}

func (g zgen) lexBound() string {
	if g.r.IntN(4) == 0 {
		return g.pick("-", "+", "x", "")
	}
	return g.pick("[", "(") + g.member()
}

func (g zgen) index() string {
	if g.large {
		return strconv.Itoa(g.r.IntN(440) - 220)
	}
	return strconv.Itoa(g.r.IntN(14) - 7)
}

func (g zgen) limit(args []string) []string {
	if g.r.IntN(3) == 0 {
		args = append(args, "LIMIT", strconv.Itoa(g.r.IntN(5)-1), strconv.Itoa(g.r.IntN(6)-2))
	}
	return args
}

func (g zgen) withScores(args []string) []string {
	if g.r.IntN(2) == 0 {
		args = append(args, "WITHSCORES")
	}
	return args
}

func (g zgen) command() []string {
	k := g.key()
	switch g.r.IntN(24) {
	case 0, 1, 2, 3:
		args := []string{"ZADD", k}
		for _, o := range []string{"NX", "XX", "GT", "LT", "CH", "INCR"} {
			if g.r.IntN(7) == 0 {
				args = append(args, o)
			}
		}
		for n := 1 + g.r.IntN(3); n > 0; n-- {
			args = append(args, g.score(), g.member())
		}
		return args
	case 4:
		return []string{"ZINCRBY", k, g.score(), g.member()}
	case 5:
		return []string{"ZREM", k, g.member(), g.member()}
	case 6:
		return []string{g.pick("ZSCORE", "ZRANK", "ZREVRANK"), k, g.member()}
	case 7:
		return []string{"ZMSCORE", k, g.member(), g.member()}
	case 8:
		return []string{g.pick("ZCARD", "ZPOPMIN", "ZPOPMAX"), k}
	case 9:
		return g.withScores([]string{g.pick("ZRANGE", "ZREVRANGE"), k, g.index(), g.index()})
	case 10, 11:
		return g.limit(g.withScores([]string{g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k, g.bound(), g.bound()}))
	case 12:
		return g.limit([]string{g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), k, g.lexBound(), g.lexBound()})
	case 13:
		args := []string{"ZRANGE", k}
		switch g.r.IntN(3) {
		case 0:
			args = append(args, g.index(), g.index())
		case 1:
			args = append(args, g.bound(), g.bound(), "BYSCORE")
		default:
			args = append(args, g.lexBound(), g.lexBound(), "BYLEX")
		}
		if g.r.IntN(2) == 0 {
			args = append(args, "REV")
		}
		return g.limit(g.withScores(args))
	case 14:
		return []string{"ZCOUNT", k, g.bound(), g.bound()}
	case 15:
		return []string{"ZLEXCOUNT", k, g.lexBound(), g.lexBound()}
	case 16:
		switch g.r.IntN(3) {
		case 0:
			return []string{"ZREMRANGEBYRANK", k, g.index(), g.index()}
		case 1:
			return []string{"ZREMRANGEBYSCORE", k, g.bound(), g.bound()}
		}
		return []string{"ZREMRANGEBYLEX", k, g.lexBound(), g.lexBound()}
	case 17:
		return []string{g.pick("ZPOPMIN", "ZPOPMAX"), k, strconv.Itoa(g.r.IntN(5) - 1)}
	case 18, 19:
		op := g.pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZUNION", "ZINTER", "ZDIFF")
		args := []string{op}
		if op[len(op)-1] == 'E' {
			args = append(args, g.key())
		}
		n := 1 + g.r.IntN(3)
		args = append(args, strconv.Itoa(n))
		for i := 0; i < n; i++ {
			args = append(args, g.key())
		}
		if g.r.IntN(2) == 0 {
			args = append(args, "WEIGHTS")
			for i := 0; i < n; i++ {
				args = append(args, g.pick("1", "2", "0", "-1", "0.5", "inf"))
			}
		}
		if g.r.IntN(2) == 0 {
			args = append(args, "AGGREGATE", g.pick("SUM", "MIN", "MAX"))
		}
		if op[len(op)-1] != 'E' {
			args = g.withScores(args)
		}
		return args
	case 20:
		return g.limit([]string{"ZRANGESTORE", g.key(), k, g.bound(), g.bound(), "BYSCORE"})
	case 21:
		return []string{"ZSCAN", k, "0", "MATCH", g.pick("*", "a*", "?", "[a-c]*", "*b")}
	case 22:
		return g.withScores([]string{"ZRANDMEMBER", k, g.pick("0", "20", "100")})
	}
	return []string{"ZINTERCARD", "2", k, g.key(), "LIMIT", g.pick("0", "1", "3")}
}
