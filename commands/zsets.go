package commands

import (
	"math"
	"strings"

	"github.com/qlessd/qlessd/store"
)

// Sorted-set commands. Range commands are in zsets_range.go, pops in
// zsets_pop.go, set algebra in zsets_algebra.go, ZSCAN in zsets_scan.go and
// ZRANDMEMBER in zsets_random.go.
func registerZSets(t *Table) {
	t.Add(
		&Cmd{Name: "zadd", Arity: -4, Flags: Write | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZAdd},
		&Cmd{Name: "zincrby", Arity: 4, Flags: Write | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZIncrBy},
		&Cmd{Name: "zrem", Arity: -3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZRem},
		&Cmd{Name: "zscore", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZScore},
		&Cmd{Name: "zmscore", Arity: -3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZMScore},
		&Cmd{Name: "zcard", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZCard},
		&Cmd{Name: "zrank", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZRank},
		&Cmd{Name: "zrevrank", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZRank},
		&Cmd{Name: "zrandmember", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZRandMember},
	)
	registerZSetRanges(t)
	registerZSetPops(t)
	registerZSetAlgebra(t)
	t.Add(&Cmd{Name: "zscan", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZScan})
}

// openZSet opens key as a sorted set, replying WRONGTYPE on failure.
func openZSet(c *Ctx, key []byte) (*store.ZSet, bool) {
	z, err := c.Tx.OpenZSet(c.Tx.KeyString(key))
	if err != nil {
		c.StoreErr(err)
		return nil, false
	}
	return z, true
}

func writeScore(c *Ctx, f float64) { c.W.WriteDouble(f) }

// parseScore reads a score argument as Redis's getDoubleFromObject does:
// like ParseFloat, but a value that underflows to zero is refused too
// (strtod's ERANGE).
func parseScore(b []byte) (float64, bool) {
	f, ok := ParseFloat(b)
	if !ok {
		return 0, false
	}
	if f == 0 && mantissaNonZero(string(b)) {
		return 0, false
	}
	return f, true
}

func mantissaNonZero(s string) bool {
	s = strings.TrimLeft(s, "+-")
	digits, end := "123456789", "eE"
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s, digits, end = s[2:], "123456789abcdefABCDEF", "pP"
	}
	if i := strings.IndexAny(s, end); i >= 0 {
		s = s[:i]
	}
	return strings.ContainsAny(s, digits)
}

type zaddFlags struct {
	nx, xx, gt, lt, ch, incr bool
}

func cmdZAdd(c *Ctx, args [][]byte) { zaddGeneric(c, args, zaddFlags{}) }

// ZINCRBY shares ZADD's parsing, options included, as in Redis: ZINCRBY k
// nx m is a syntax error because the pairs no longer add up.
func cmdZIncrBy(c *Ctx, args [][]byte) { zaddGeneric(c, args, zaddFlags{incr: true}) }

func zaddGeneric(c *Ctx, args [][]byte, f zaddFlags) {
	rest := args[f.parse(args):]
	if msg := f.refusal(len(rest)); msg != "" {
		c.Error(msg)
		return
	}
	var sbuf [8]float64
	scores := sbuf[:0]
	if n := len(rest) / 2; n > len(sbuf) {
		scores = make([]float64, 0, n)
	}
	for j := 0; j < len(rest); j += 2 {
		s, ok := parseScore(rest[j])
		if !ok {
			c.Error(ErrNotFloat)
			return
		}
		scores = append(scores, s)
	}
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	defer z.Release()
	r, nan := f.apply(z, rest, scores)
	z.Flush()
	switch {
	case nan:
		c.Error(ErrZScoreNaN)
	case f.incr && r.processed > 0:
		writeScore(c, r.last)
	case f.incr:
		c.W.WriteNull()
	case f.ch:
		c.W.WriteInt(r.added + r.updated)
	default:
		c.W.WriteInt(r.added)
	}
}

// parse reads ZADD's options from args[2] on and returns where the
// score/member pairs begin.
func (f *zaddFlags) parse(args [][]byte) int {
	i := 2
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case EqualFold(a, "nx"):
			f.nx = true
		case EqualFold(a, "xx"):
			f.xx = true
		case EqualFold(a, "ch"):
			f.ch = true
		case EqualFold(a, "incr"):
			f.incr = true
		case EqualFold(a, "gt"):
			f.gt = true
		case EqualFold(a, "lt"):
			f.lt = true
		default:
			return i
		}
	}
	return i
}

// refusal is the error for options that do not go together, or for n
// arguments that are not score/member pairs; "" when there is none.
func (f zaddFlags) refusal(n int) string {
	switch {
	case n == 0 || n%2 != 0:
		return ErrSyntax
	case f.nx && f.xx:
		return ErrXXNX
	case (f.gt && f.nx) || (f.lt && f.nx) || (f.gt && f.lt):
		return ErrGTLTNX
	case f.incr && n > 2:
		return ErrIncrOnePair
	}
	return ""
}

// zaddCounts is what ZADD did: the reply's figures.
type zaddCounts struct {
	added, updated, processed int64
	last                      float64
}

// apply adds or updates each member of the pairs in rest with its score
// in scores; nan reports an INCR whose sum is not a number, which stops it
// (what came before stays, as in Redis).
func (f zaddFlags) apply(z *store.ZSet, rest [][]byte, scores []float64) (r zaddCounts, nan bool) {
	for j, score := range scores {
		// The set copies the member into the items or payload it
		// writes, and z does not outlive this command.
		member := argView(rest[2*j+1])
		cur, exists := z.Score(member)
		switch {
		case exists:
			if f.nx {
				continue
			}
			if f.incr {
				score += cur
				if math.IsNaN(score) {
					return r, true
				}
			}
			if (f.lt && score >= cur) || (f.gt && score <= cur) {
				continue
			}
			r.last = score
			r.processed++
			if score != cur {
				z.PutScored(member, score, cur, true)
				r.updated++
			}
		case !f.xx:
			z.PutScored(member, score, 0, false)
			r.last = score
			r.added++
			r.processed++
		}
	}
	return r, false
}

func cmdZRem(c *Ctx, args [][]byte) {
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	defer z.Release()
	var n int64
	for _, m := range args[2:] {
		if z.Remove(string(m)) {
			n++
		}
	}
	z.Flush()
	c.W.WriteInt(n)
}

func cmdZScore(c *Ctx, args [][]byte) {
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	defer z.Release()
	if s, ok := z.Score(string(args[2])); ok {
		writeScore(c, s)
		return
	}
	c.W.WriteNull()
}

func cmdZMScore(c *Ctx, args [][]byte) {
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	defer z.Release()
	c.W.WriteArray(len(args) - 2)
	for _, m := range args[2:] {
		if s, ok := z.Score(string(m)); ok {
			writeScore(c, s)
		} else {
			c.W.WriteNull()
		}
	}
}

func cmdZCard(c *Ctx, args [][]byte) {
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	defer z.Release()
	c.W.WriteInt(z.Len())
}

// cmdZRank serves ZRANK and ZREVRANK; the cost is one visit per member
// ranked before the member, counted from the end the rank starts at.
func cmdZRank(c *Ctx, args [][]byte) {
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	defer z.Release()
	if r, ok := z.Rank(string(args[2]), c.Name == "zrevrank"); ok {
		c.W.WriteInt(r)
		return
	}
	c.W.WriteNull()
}
