package commands

import (
	"math"
	"strconv"
	"strings"

	"github.com/qlessd/qlessd/store"
)

func registerZSetRanges(t *Table) {
	t.Add(
		&Cmd{Name: "zrange", Arity: -4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: zrangeCmd(rangeAuto, false, false)},
		&Cmd{Name: "zrevrange", Arity: -4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: zrangeCmd(rangeRank, true, true)},
		&Cmd{Name: "zrangebyscore", Arity: -4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: zrangeCmd(rangeScore, false, true)},
		&Cmd{Name: "zrevrangebyscore", Arity: -4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: zrangeCmd(rangeScore, true, true)},
		&Cmd{Name: "zrangebylex", Arity: -4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: zrangeCmd(rangeLex, false, true)},
		&Cmd{Name: "zrevrangebylex", Arity: -4, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: zrangeCmd(rangeLex, true, true)},
		&Cmd{Name: "zrangestore", Arity: -5, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Run: cmdZRangeStore},
		&Cmd{Name: "zcount", Arity: 4, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZCount},
		&Cmd{Name: "zlexcount", Arity: 4, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdZLexCount},
		&Cmd{Name: "zremrangebyrank", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 1, Step: 1, Run: zremRangeCmd(rangeRank)},
		&Cmd{Name: "zremrangebyscore", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 1, Step: 1, Run: zremRangeCmd(rangeScore)},
		&Cmd{Name: "zremrangebylex", Arity: 4, Flags: Write, FirstKey: 1, LastKey: 1, Step: 1, Run: zremRangeCmd(rangeLex)},
	)
}

type rangeKind int

const (
	rangeAuto rangeKind = iota
	rangeRank
	rangeScore
	rangeLex
)

// zrange is one parsed range request of the ZRANGE family.
type zrange struct {
	kind          rangeKind
	reverse       bool
	withScores    bool
	start, stop   int64
	min, max      store.ScoreBound
	lexMin        store.LexBound
	lexMax        store.LexBound
	offset, limit int64
}

// parseScoreBound reads a score range end as zslParseRange: '(' for an
// exclusive bound, then strtod over the whole rest.
func parseScoreBound(b []byte) (store.ScoreBound, bool) {
	var sb store.ScoreBound
	if len(b) > 0 && b[0] == '(' {
		sb.Excl = true
		b = b[1:]
	}
	f, ok := strtodWhole(string(b))
	sb.Value = f
	return sb, ok
}

// strtodWhole parses s as C's strtod must consume all of it: leading
// spaces allowed, the empty string is 0, overflow gives ±inf and underflow
// 0, NaN refused.
func strtodWhole(s string) (float64, bool) {
	if s == "" {
		return 0, true
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" || strings.ContainsRune(t, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			err = nil
		} else if lt := strings.ToLower(t); strings.Contains(lt, "0x") && !strings.Contains(lt, "p") {
			f, err = strconv.ParseFloat(t+"p0", 64)
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				err = nil
			}
		}
	}
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func parseLexBound(b []byte) (store.LexBound, bool) {
	if len(b) == 0 {
		return store.LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) != 1 {
			return store.LexBound{}, false
		}
		if b[0] == '+' {
			return store.LexBound{Inf: 1, Excl: true}, true
		}
		return store.LexBound{Inf: -1, Excl: true}, true
	case '(':
		return store.LexBound{Value: string(b[1:]), Excl: true}, true
	case '[':
		return store.LexBound{Value: string(b[1:])}, true
	}
	return store.LexBound{}, false
}

// parseZRange parses "<min> <max> [options]" starting at args[0] as
// Redis's zrangeGenericCommand: options first, then the range by kind.
// fixedDir refuses REV (the command name says the direction); storing
// refuses WITHSCORES (ZRANGESTORE). It replies with the error and returns
// false on bad input.
func parseZRange(c *Ctx, args [][]byte, kind rangeKind, reverse, fixedDir, storing bool) (zrange, bool) {
	r := zrange{kind: kind, reverse: reverse, limit: -1}
	dirSet := fixedDir
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case !storing && EqualFold(a, "withscores"):
			r.withScores = true
		case EqualFold(a, "limit") && left >= 2:
			off, ok1 := ParseInt(args[j+1])
			lim, ok2 := ParseInt(args[j+2])
			if !ok1 || !ok2 {
				c.Error(ErrNotInt)
				return zrange{}, false
			}
			r.offset, r.limit = off, lim
			j += 2
		case !dirSet && EqualFold(a, "rev"):
			r.reverse, dirSet = true, true
		case r.kind == rangeAuto && EqualFold(a, "bylex"):
			r.kind = rangeLex
		case r.kind == rangeAuto && EqualFold(a, "byscore"):
			r.kind = rangeScore
		default:
			c.Error(ErrSyntax)
			return zrange{}, false
		}
	}
	if r.kind == rangeAuto {
		r.kind = rangeRank
	}
	if r.limit != -1 && r.kind == rangeRank {
		c.Error(ErrLimitOnlyWith)
		return zrange{}, false
	}
	if r.withScores && r.kind == rangeLex {
		c.Error(ErrWithScoresLex)
		return zrange{}, false
	}
	lo, hi := args[0], args[1]
	if r.reverse && r.kind != rangeRank {
		lo, hi = hi, lo
	}
	var ok bool
	switch r.kind {
	case rangeRank:
		var ok2 bool
		r.start, ok = ParseInt(lo)
		r.stop, ok2 = ParseInt(hi)
		if !ok || !ok2 {
			c.Error(ErrNotInt)
			return zrange{}, false
		}
	case rangeScore:
		var ok2 bool
		r.min, ok = parseScoreBound(lo)
		r.max, ok2 = parseScoreBound(hi)
		if !ok || !ok2 {
			c.Error(ErrMinMaxFloat)
			return zrange{}, false
		}
	case rangeLex:
		var ok2 bool
		r.lexMin, ok = parseLexBound(lo)
		r.lexMax, ok2 = parseLexBound(hi)
		if !ok || !ok2 {
			c.Error(ErrMinMaxLex)
			return zrange{}, false
		}
	}
	return r, true
}

// each calls fn for the entries the range selects, in reply order, with
// OFFSET/LIMIT applied as Redis applies them (a negative offset selects
// nothing, a negative limit everything). It stops visiting as soon as the
// limit is reached.
func (r *zrange) each(z *store.ZSet, fn func(store.Entry)) {
	if r.kind == rangeRank {
		start, stop, ok := store.ClampRange(r.start, r.stop, z.Len())
		if ok {
			z.RangeByRank(start, stop, r.reverse, func(e store.Entry) bool { fn(e); return true })
		}
		return
	}
	if r.offset < 0 || (r.offset > 0 && r.offset >= z.Len()) || r.limit == 0 {
		return
	}
	left := r.limit
	visit := func(e store.Entry) bool {
		fn(e)
		left--
		return left != 0
	}
	if r.kind == rangeLex {
		z.RangeByLex(r.lexMin, r.lexMax, r.reverse, r.offset, visit)
		return
	}
	skip := r.offset
	z.RangeByScore(r.min, r.max, r.reverse, func(e store.Entry) bool {
		if skip > 0 {
			skip--
			return true
		}
		return visit(e)
	})
}

func (r *zrange) collect(z *store.ZSet) []store.Entry {
	var out []store.Entry
	r.each(z, func(e store.Entry) { out = append(out, e) })
	return out
}

func writeEntries(c *Ctx, es []store.Entry, withScores bool) {
	if withScores {
		c.W.WritePairs(len(es))
	} else {
		c.W.WriteArray(len(es))
	}
	for _, e := range es {
		if withScores {
			c.W.WritePair()
		}
		c.W.WriteBulkString(e.Member)
		if withScores {
			writeScore(c, e.Score)
		}
	}
}

// zrangeCmd builds ZRANGE and its older fixed-form variants; fixedDir
// means the variant's name already says the direction (REV is refused).
func zrangeCmd(kind rangeKind, reverse, fixedDir bool) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		r, ok := parseZRange(c, args[2:], kind, reverse, fixedDir, false)
		if !ok {
			return
		}
		z, ok := openZSet(c, args[1])
		if !ok {
			return
		}
		defer z.Release()
		writeEntries(c, r.collect(z), r.withScores)
	}
}

func cmdZRangeStore(c *Ctx, args [][]byte) {
	r, ok := parseZRange(c, args[3:], rangeAuto, false, false, true)
	if !ok {
		return
	}
	src, ok := openZSet(c, args[2])
	if !ok {
		return
	}
	c.W.WriteInt(storeEntries(c, string(args[1]), r.collect(src)))
}

// storeEntries replaces dst (of any type) with a sorted set of es, or
// deletes it when es is empty, and returns the new cardinality.
func storeEntries(c *Ctx, dst string, es []store.Entry) int64 {
	c.Tx.Delete(dst)
	if len(es) == 0 {
		return 0
	}
	z, err := c.Tx.OpenZSet(dst)
	if err != nil {
		return 0 // cannot happen: dst was just deleted
	}
	for _, e := range es {
		z.Put(e.Member, e.Score)
	}
	z.Flush()
	return z.Len()
}

func cmdZCount(c *Ctx, args [][]byte) {
	min, ok1 := parseScoreBound(args[2])
	max, ok2 := parseScoreBound(args[3])
	if !ok1 || !ok2 {
		c.Error(ErrMinMaxFloat)
		return
	}
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	c.W.WriteInt(z.CountByScore(min, max))
}

func cmdZLexCount(c *Ctx, args [][]byte) {
	min, ok1 := parseLexBound(args[2])
	max, ok2 := parseLexBound(args[3])
	if !ok1 || !ok2 {
		c.Error(ErrMinMaxLex)
		return
	}
	z, ok := openZSet(c, args[1])
	if !ok {
		return
	}
	var n int64
	z.RangeByLex(min, max, false, 0, func(store.Entry) bool { n++; return true })
	c.W.WriteInt(n)
}

func zremRangeCmd(kind rangeKind) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		r, ok := parseZRange(c, args[2:4], kind, false, true, true)
		if !ok {
			return
		}
		z, ok := openZSet(c, args[1])
		if !ok {
			return
		}
		es := r.collect(z)
		for _, e := range es {
			z.RemoveEntry(e)
		}
		z.Flush()
		c.W.WriteInt(int64(len(es)))
	}
}
