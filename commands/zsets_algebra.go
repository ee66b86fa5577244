package commands

import (
	"math"
	"sort"

	"github.com/qlessd/qlessd/store"
)

func registerZSetAlgebra(t *Table) {
	t.Add(
		&Cmd{Name: "zunionstore", Arity: -4, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Run: zalgebraCmd(opUnion, true)},
		&Cmd{Name: "zinterstore", Arity: -4, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Run: zalgebraCmd(opInter, true)},
		&Cmd{Name: "zdiffstore", Arity: -4, Flags: Write | DenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Run: zalgebraCmd(opDiff, true)},
		&Cmd{Name: "zunion", Arity: -3, Flags: ReadOnly, Run: zalgebraCmd(opUnion, false)},
		&Cmd{Name: "zinter", Arity: -3, Flags: ReadOnly, Run: zalgebraCmd(opInter, false)},
		&Cmd{Name: "zdiff", Arity: -3, Flags: ReadOnly, Run: zalgebraCmd(opDiff, false)},
		&Cmd{Name: "zintercard", Arity: -3, Flags: ReadOnly, Run: cmdZInterCard},
	)
}

type zop int

const (
	opUnion zop = iota
	opInter
	opDiff
)

type aggregate int

const (
	aggSum aggregate = iota
	aggMin
	aggMax
)

// zsrc is one input: a sorted set, a plain set or nothing.
type zsrc struct {
	key    string
	z      *store.ZSet
	set    []string
	setIdx map[string]struct{}
	weight float64
}

func (s *zsrc) len() int64 {
	if s.z != nil {
		return s.z.Len()
	}
	return int64(len(s.set))
}

func (s *zsrc) each(fn func(store.Entry)) {
	if s.z != nil {
		s.z.Ascend(func(e store.Entry) bool { fn(e); return true })
		return
	}
	for _, m := range s.set {
		fn(store.Entry{Member: m, Score: 1})
	}
}

func (s *zsrc) find(m string) (float64, bool) {
	if s.z != nil {
		return s.z.Score(m)
	}
	if s.setIdx == nil {
		s.setIdx = make(map[string]struct{}, len(s.set))
		for _, x := range s.set {
			s.setIdx[x] = struct{}{}
		}
	}
	_, ok := s.setIdx[m]
	return 1, ok
}

// openSources reads numkeys and opens the input keys, replying on error;
// it returns the sources and the index of the first argument after them.
func openSources(c *Ctx, args [][]byte, numIdx int) ([]*zsrc, int, bool) {
	n, ok := ParseInt(args[numIdx])
	if !ok {
		c.Error(ErrNotInt)
		return nil, 0, false
	}
	if n < 1 {
		c.Error(Errorf(ErrNumKeysZero, c.Name))
		return nil, 0, false
	}
	if n > int64(len(args)-numIdx-1) {
		c.Error(ErrSyntax)
		return nil, 0, false
	}
	srcs := make([]*zsrc, n)
	for i := range srcs {
		key := string(args[numIdx+1+i])
		s := &zsrc{key: key, weight: 1}
		switch c.Tx.TypeOf(key) {
		case store.TypeNone:
		case store.TypeZSet:
			z, err := c.Tx.OpenZSet(key)
			if err != nil {
				c.StoreErr(err)
				return nil, 0, false
			}
			s.z = z
		case store.TypeSet:
			members, _, err := c.Tx.SMembers(key)
			if err != nil {
				c.StoreErr(err)
				return nil, 0, false
			}
			s.set = members
		default:
			c.Error(ErrWrongType)
			return nil, 0, false
		}
		srcs[i] = s
	}
	return srcs, numIdx + 1 + int(n), true
}

func zalgebraCmd(op zop, storeDst bool) func(*Ctx, [][]byte) {
	return func(c *Ctx, args [][]byte) {
		numIdx := 1
		if storeDst {
			numIdx = 2
		}
		srcs, j, ok := openSources(c, args, numIdx)
		if !ok {
			return
		}
		agg := aggSum
		withScores := false
		for j < len(args) {
			left := len(args) - j
			a := args[j]
			switch {
			case op != opDiff && left >= len(srcs)+1 && EqualFold(a, "weights"):
				for i := range srcs {
					w, ok := parseScore(args[j+1+i])
					if !ok {
						c.Error(ErrWeightNotFloat)
						return
					}
					srcs[i].weight = w
				}
				j += 1 + len(srcs)
			case op != opDiff && left >= 2 && EqualFold(a, "aggregate"):
				switch b := args[j+1]; {
				case EqualFold(b, "sum"):
					agg = aggSum
				case EqualFold(b, "min"):
					agg = aggMin
				case EqualFold(b, "max"):
					agg = aggMax
				default:
					c.Error(ErrSyntax)
					return
				}
				j += 2
			case !storeDst && EqualFold(a, "withscores"):
				withScores = true
				j++
			default:
				c.Error(ErrSyntax)
				return
			}
		}
		res := zcombine(srcs, op, agg, -1)
		if storeDst {
			c.W.WriteInt(storeEntries(c, string(args[1]), res))
			return
		}
		sortEntries(res)
		writeEntries(c, res, withScores)
	}
}

// cmdZInterCard counts the intersection, stopping at LIMIT when given.
func cmdZInterCard(c *Ctx, args [][]byte) {
	srcs, j, ok := openSources(c, args, 1)
	if !ok {
		return
	}
	limit := int64(-1)
	for j < len(args) {
		if len(args)-j >= 2 && EqualFold(args[j], "limit") {
			v, ok := ParseInt(args[j+1])
			if !ok || v < 0 {
				c.Error(ErrLimitNegative)
				return
			}
			limit = v
			j += 2
			continue
		}
		c.Error(ErrSyntax)
		return
	}
	if limit == 0 {
		limit = -1
	}
	c.W.WriteInt(int64(len(zcombine(srcs, opInter, aggSum, limit))))
}

func aggregateInto(target *float64, val float64, agg aggregate) {
	switch agg {
	case aggSum:
		*target += val
		// inf + -inf is NaN; Redis keeps 0 instead.
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggMin:
		if val < *target {
			*target = val
		}
	case aggMax:
		if val > *target {
			*target = val
		}
	}
}

// zcombine computes the result in Redis's order of operations, so that
// float sums come out bit for bit the same: inputs sorted by size
// (stable) for union and intersection, weights applied per input. For
// an intersection, limit >= 0 stops after that many results.
func zcombine(srcs []*zsrc, op zop, agg aggregate, limit int64) []store.Entry {
	var out []store.Entry
	if op != opDiff {
		sort.SliceStable(srcs, func(a, b int) bool { return srcs[a].len() < srcs[b].len() })
	}
	switch op {
	case opInter:
		if srcs[0].len() == 0 {
			return nil
		}
		srcs[0].each(func(e store.Entry) {
			if limit >= 0 && int64(len(out)) >= limit {
				return
			}
			score := srcs[0].weight * e.Score
			if math.IsNaN(score) {
				score = 0
			}
			for _, s := range srcs[1:] {
				v, ok := s.find(e.Member)
				if !ok {
					return
				}
				aggregateInto(&score, v*s.weight, agg)
			}
			out = append(out, store.Entry{Member: e.Member, Score: score})
		})
	case opUnion:
		acc := map[string]int{}
		for _, s := range srcs {
			w := s.weight
			s.each(func(e store.Entry) {
				score := w * e.Score
				if math.IsNaN(score) {
					score = 0
				}
				if i, ok := acc[e.Member]; ok {
					aggregateInto(&out[i].Score, score, agg)
					return
				}
				acc[e.Member] = len(out)
				out = append(out, store.Entry{Member: e.Member, Score: score})
			})
		}
	case opDiff:
		srcs[0].each(func(e store.Entry) {
			for _, s := range srcs[1:] {
				if _, ok := s.find(e.Member); ok {
					return
				}
			}
			out = append(out, e)
		})
	}
	return out
}

// sortEntries orders entries as a sorted set does: by score, ties by
// member bytes (-0 and 0 compare equal).
func sortEntries(es []store.Entry) {
	sort.Slice(es, func(a, b int) bool {
		if es[a].Score != es[b].Score {
			return es[a].Score < es[b].Score
		}
		return es[a].Member < es[b].Member
	})
}
