package store

import (
	"encoding/binary"
	"math"
	"sort"
	"strings"
)

// Sorted sets. A small one lives inside its metadata item (zset_inline.go).
// Past that the metadata payload is 8 bytes (big endian: the size when the
// set moved to items, a hint only) and each member has one item under the
// key's data prefix:
//
//	<prefix> 'm' <member>                 -> 8-byte IEEE bits of the score
//
// and the order by (score, member bytes), Redis's order, is kept in memory
// (zset_index.go), so a bounded query visits only the entries it returns.
// The in-memory order also gives the size, so adding or removing a member
// writes its item alone, not the metadata item too.
// Data files of earlier versions also hold <prefix> 's' <8-byte ordered
// score> <member> items; they are deleted when such a file is opened. A -0
// score is stored as 0, as Redis stores it in a small (listpack) set.
const (
	zTagMember = 'm'
	zTagScore  = 's'
)

// ZSet is an open sorted set. Reads see the transaction's state; writes
// change items at once and the cardinality in memory, and Flush records it
// (deleting the key when it became empty). Callers never see the layout.
type ZSet struct {
	tx      *Tx
	key     string
	meta    Meta
	existed bool
	card    int64
	// headerStale: the set moved from its metadata item to items in this
	// handle, so Flush must rewrite the metadata item as a header.
	headerStale bool
	db          int
	dirty       bool
	visits      int64   // items visited by iterations, so tests can check that bounded queries do not scan
	inline      bool    // members live in the payload, decoded into list
	list        []Entry // the inline members in (score, member) order, once loaded
	size        int     // bytes the loaded inline members take in the payload
	loaded      bool
	idx         *zindex // the order of a set kept as items, once used
}

// OpenZSet opens key as a sorted set. An absent key gives an empty set that
// is created by the first write; another type gives ErrWrongType.
func (tx *Tx) OpenZSet(key string) (*ZSet, error) {
	m, ok, err := tx.lookupType(key, TypeZSet)
	if err != nil {
		return nil, err
	}
	z := tx.freeZSet
	if z != nil {
		tx.freeZSet = nil
		*z = ZSet{tx: tx, key: key, meta: m, existed: ok, db: tx.sel, list: z.list[:0]}
	} else {
		z = &ZSet{tx: tx, key: key, meta: m, existed: ok, db: tx.sel}
	}
	switch {
	case !ok:
		z.inline, z.loaded = true, true
	case len(m.Payload) == zItemsPayloadLen:
		z.card = int64(len(z.index().scores))
	case zsetPayloadInline(m.Payload):
		z.inline = true
		z.card = zInlineCount(m.Payload)
	}
	return z, nil
}

// Release hands z back to its transaction, for the next OpenZSet to reuse
// with its entry array: a qless script opens a dozen sorted sets. z must
// not be used afterwards; a set never released is simply not reused.
func (z *ZSet) Release() {
	tx := z.tx
	*z = ZSet{list: z.list[:0]}
	tx.freeZSet = z
}

// memberPrefixOf is what precedes a member of key in its item's key in
// the data file.
func memberPrefixOf(db int, key string) string {
	return dataPrefix(db, key) + string(zTagMember)
}

// Exists reports whether the key exists (as of the last Flush).
func (z *ZSet) Exists() bool { return z.existed }

// Len returns the number of members.
func (z *ZSet) Len() int64 { return z.card }

// Flush records the new cardinality after writes; an emptied set's key is
// deleted. It is a no-op when nothing was written.
func (z *ZSet) Flush() {
	if !z.dirty {
		return
	}
	z.dirty = false
	if z.card == 0 {
		if z.existed {
			z.tx.remove(z.key, z.meta)
			z.existed = false
		}
		z.idx = nil
		return
	}
	if z.inline {
		z.flushInline()
		return
	}
	if z.existed && !z.headerStale {
		z.tx.touch(z.key) // the metadata item stands: the size is the order's
		return
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(z.card))
	nm := Meta{Type: TypeZSet, ExpireAt: z.meta.ExpireAt, Payload: string(b[:])}
	z.tx.putMeta(z.key, z.meta, z.existed, nm)
	z.meta, z.existed, z.headerStale = nm, true, false
}

// Score returns member's score.
func (z *ZSet) Score(member string) (float64, bool) {
	if z.card == 0 {
		return 0, false
	}
	if z.inline {
		if !z.loaded {
			return zInlineScore(z.meta.Payload, member)
		}
		if i := z.inlineFind(member); i >= 0 {
			return z.list[i].Score, true
		}
		return 0, false
	}
	score, ok := z.index().scores[member]
	return score, ok
}

// Put sets member's score and reports whether the member is new.
func (z *ZSet) Put(member string, score float64) bool {
	if z.inline {
		return z.putInline(member, normZero(score))
	}
	old, exists := z.Score(member)
	return z.PutScored(member, score, old, exists)
}

// PutScored is Put for a caller that has just asked Score about member
// (old, exists), which saves looking the member up twice. Put and
// PutScored copy member into what they write, so it may share a caller's
// buffer that stays unchanged while z is in use.
func (z *ZSet) PutScored(member string, score, old float64, exists bool) bool {
	score = normZero(score)
	if z.inline {
		return z.putInline(member, score)
	}
	ix := z.index()
	if exists {
		if math.Float64bits(old) == math.Float64bits(score) {
			return false
		}
		z.tx.mutating()
		member = ix.rescore(member, old, score)
	} else {
		z.tx.mutating()
		member = strings.Clone(member)
		ix.insert(member, score)
		z.card++
	}
	z.tx.db.jr.noteMember(ix, member, old, exists)
	z.tx.db.jr.addSetMember(dbKey{z.db, z.key}, member, score)
	z.dirty = true
	return !exists
}

// Remove deletes member and reports whether it was there.
func (z *ZSet) Remove(member string) bool {
	if z.inline {
		i := z.inlineFind(member)
		if i < 0 {
			return false
		}
		z.inlineDelete(i)
		z.card--
		z.dirty = true
		return true
	}
	old, exists := z.Score(member)
	if !exists {
		return false
	}
	z.RemoveEntry(Entry{Member: member, Score: old})
	return true
}

// RemoveEntry deletes an entry just read from this set (its score as
// iterated), saving the lookup Remove does.
func (z *ZSet) RemoveEntry(e Entry) {
	if z.inline {
		z.Remove(e.Member)
		return
	}
	z.tx.mutating()
	z.tx.db.jr.addDelMember(dbKey{z.db, z.key}, e.Member)
	ix := z.index()
	z.tx.db.jr.noteMember(ix, ix.remove(e.Member, e.Score), e.Score, true)
	z.card--
	z.dirty = true
}

// Entry is one member with its score.
type Entry struct {
	Member string
	Score  float64
}

// ScoreBound is one end of a score range; Excl makes it exclusive.
type ScoreBound struct {
	Value float64
	Excl  bool
}

// LexBound is one end of a member range: Inf -1 is "-", +1 is "+",
// otherwise Value with Excl for "(" and inclusive for "[".
type LexBound struct {
	Value string
	Excl  bool
	Inf   int
}

// Ascend calls fn for members in score order until it returns false.
func (z *ZSet) Ascend(fn func(Entry) bool) {
	if z.inline {
		z.inlineWalk(0, false, fn)
		return
	}
	z.index().order.Scan(z.visit(fn))
}

// Descend calls fn for members in reverse score order until it returns false.
func (z *ZSet) Descend(fn func(Entry) bool) {
	if z.inline {
		z.inlineWalk(len(z.ents())-1, true, fn)
		return
	}
	z.index().order.Reverse(z.visit(fn))
}

// RangeByScore calls fn for members with min <= score <= max (bounds as
// given), in score order or reversed, until fn returns false. It visits
// only the items it passes to fn, plus at most one past the end.
func (z *ZSet) RangeByScore(min, max ScoreBound, reverse bool, fn func(Entry) bool) {
	if z.card == 0 || !scoreRangeNonEmpty(min, max) {
		return
	}
	if z.inline {
		z.inlineRangeByScore(min, max, reverse, fn)
		return
	}
	fn = z.visit(fn)
	if reverse {
		z.index().descendFrom(max, func(e Entry) bool {
			if e.Score < min.Value || min.Excl && e.Score == min.Value {
				return false
			}
			return fn(e)
		})
		return
	}
	z.index().ascendFrom(min, func(e Entry) bool {
		if e.Score > max.Value || max.Excl && e.Score == max.Value {
			return false
		}
		return fn(e)
	})
}

// visit wraps fn to count the entries it is shown.
func (z *ZSet) visit(fn func(Entry) bool) func(Entry) bool {
	return func(e Entry) bool {
		z.visits++
		return fn(e)
	}
}

// CountByScore counts members in a score range. It costs one visit per
// counted member: the layout keeps no subtree counts.
func (z *ZSet) CountByScore(min, max ScoreBound) int64 {
	var n int64
	z.RangeByScore(min, max, false, func(Entry) bool { n++; return true })
	return n
}

func scoreRangeNonEmpty(min, max ScoreBound) bool {
	return !(min.Value > max.Value || (min.Value == max.Value && (min.Excl || max.Excl)))
}

// LexRangeNonEmpty reports whether a member range can hold anything, as
// Redis tests before looking (for example "(a" to "[a" is always empty).
func LexRangeNonEmpty(min, max LexBound) bool {
	c := lexCompare(min, max)
	return !(c > 0 || (c == 0 && (min.Excl || max.Excl || min.Inf != 0)))
}

func lexCompare(a, b LexBound) int {
	if a.Inf != 0 || b.Inf != 0 {
		switch {
		case a.Inf == b.Inf:
			return 0
		case a.Inf == -1 || b.Inf == 1:
			return -1
		default:
			return 1
		}
	}
	switch {
	case a.Value < b.Value:
		return -1
	case a.Value > b.Value:
		return 1
	}
	return 0
}

func lexGteMin(m string, min LexBound) bool {
	switch min.Inf {
	case -1:
		return true
	case 1:
		return false
	}
	if min.Excl {
		return m > min.Value
	}
	return m >= min.Value
}

func lexLteMax(m string, max LexBound) bool {
	switch max.Inf {
	case -1:
		return false
	case 1:
		return true
	}
	if max.Excl {
		return m < max.Value
	}
	return m <= max.Value
}

// RangeByLex calls fn for members between min and max in member order,
// which is score order when all scores are equal (the case ZRANGEBYLEX is
// meant for); then the range is a key range under that score and costs only
// what it returns. With mixed scores it walks score order as Redis walks a
// small set: from the first member >= min (<= max when reversed), which
// must be within the other bound, then past skip members unchecked (as
// Redis applies a LIMIT offset), then while members stay within the other
// bound. With equal scores, skipping checked or unchecked is the same.
func (z *ZSet) RangeByLex(min, max LexBound, reverse bool, skip int64, fn func(Entry) bool) {
	if z.card == 0 || !LexRangeNonEmpty(min, max) {
		return
	}
	first, _ := z.edge(false)
	last, _ := z.edge(true)
	if !lexGteMin(last.Member, min) || !lexLteMax(first.Member, max) {
		return
	}
	if !z.inline && math.Float64bits(normZero(first.Score)) == math.Float64bits(normZero(last.Score)) {
		z.equalScoreLex(first.Score, min, max, reverse, func(e Entry) bool {
			if skip > 0 {
				skip--
				return true
			}
			return fn(e)
		})
		return
	}
	started := false
	inFar := func(m string) bool {
		if reverse {
			return lexGteMin(m, min)
		}
		return lexLteMax(m, max)
	}
	iter := func(e Entry) bool {
		if !started {
			if reverse && !lexLteMax(e.Member, max) || !reverse && !lexGteMin(e.Member, min) {
				return true
			}
			started = true
			if !inFar(e.Member) {
				return false
			}
		}
		if skip > 0 {
			skip--
			return true
		}
		if !inFar(e.Member) {
			return false
		}
		return fn(e)
	}
	if reverse {
		z.Descend(iter)
	} else {
		z.Ascend(iter)
	}
}

// equalScoreLex walks the members between min and max of a set kept as
// items whose members all have score: an index range.
func (z *ZSet) equalScoreLex(score float64, min, max LexBound, reverse bool, fn func(Entry) bool) {
	ix, fn := z.index(), z.visit(fn)
	if reverse {
		in := func(e Entry) bool { return lexLteMax(e.Member, max) }
		walk := func(e Entry) bool {
			if !in(e) {
				return true // only max itself, when excluded
			}
			if !lexGteMin(e.Member, min) {
				return false
			}
			return fn(e)
		}
		if max.Inf == 1 {
			ix.order.Reverse(walk)
		} else {
			ix.order.Descend(Entry{Member: max.Value, Score: score}, walk)
		}
		return
	}
	pivot := Entry{Score: score}
	if min.Inf == 0 {
		pivot.Member = min.Value
		if min.Excl {
			pivot.Member += "\x00"
		}
	}
	ix.order.Ascend(pivot, func(e Entry) bool {
		if !lexLteMax(e.Member, max) {
			return false
		}
		return fn(e)
	})
}

// edge returns the lowest (or, with last, highest) entry.
func (z *ZSet) edge(last bool) (Entry, bool) {
	var out Entry
	found := false
	fn := func(e Entry) bool { out, found = e, true; return false }
	if last {
		z.Descend(fn)
	} else {
		z.Ascend(fn)
	}
	return out, found
}

// RangeByRank calls fn for ranks start..stop (0-based, already clamped to
// 0 <= start <= stop < Len) in score order, or for reverse ranks in reverse
// order. It walks from whichever end of the set is nearer, so it costs
// min(start, Len-stop) skipped items plus the items returned.
func (z *ZSet) RangeByRank(start, stop int64, reverse bool, fn func(Entry) bool) {
	if start < 0 || stop >= z.card || start > stop {
		return
	}
	if reverse {
		// Reverse rank r is forward rank card-1-r.
		start, stop = z.card-1-stop, z.card-1-start
	}
	n := stop - start + 1
	if z.inline {
		i := start
		if reverse {
			i = stop
		}
		z.inlineWalk(int(i), reverse, func(e Entry) bool {
			n--
			return fn(e) && n > 0
		})
		return
	}
	ix := z.index()
	fn = z.visit(fn)
	walk := func(e Entry) bool {
		n--
		return fn(e) && n > 0
	}
	if reverse {
		e, _ := ix.order.GetAt(int(stop))
		ix.order.Descend(e, walk)
		return
	}
	e, _ := ix.order.GetAt(int(start))
	ix.order.Ascend(e, walk)
}

// Rank returns member's 0-based rank in score order, or in reverse order.
// It counts from the end the rank is measured from, so it costs one visit
// per member ranked before it.
func (z *ZSet) Rank(member string, reverse bool) (int64, bool) {
	score, ok := z.Score(member)
	if !ok {
		return 0, false
	}
	if z.inline {
		i := int64(z.inlineSearch(score, member))
		z.visits += i
		if reverse {
			i = z.card - 1 - i
		}
		return i, true
	}
	target := Entry{Member: member, Score: score}
	ix := z.index()
	// The number of entries before target: the first index whose entry is
	// not below it, found with the btree's counted descent.
	lo, hi := 0, ix.order.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		e, _ := ix.order.GetAt(mid)
		z.visits++
		if entryLess(e, target) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	n := int64(lo)
	if reverse {
		n = z.card - 1 - n
	}
	return n, true
}

// Members calls fn for members in member byte order starting at the first
// member >= from, until fn returns false (for ZSCAN).
func (z *ZSet) Members(from string, fn func(Entry) bool) {
	if z.inline {
		z.inlineMembers(from, fn)
		return
	}
	ix := z.index()
	ms := ix.members()
	for i := sort.SearchStrings(ms, from); i < len(ms); i++ {
		z.visits++
		if !fn(Entry{Member: ms[i], Score: ix.scores[ms[i]]}) {
			return
		}
	}
}

func normZero(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

// orderedScore maps a score to 8 bytes whose byte order is numeric order:
// flip every bit of negatives, only the sign bit of the others.
func orderedScore(f float64) uint64 {
	bits := math.Float64bits(normZero(f))
	if bits>>63 == 1 {
		return ^bits
	}
	return bits | 1<<63
}

func decodeScore(enc string) float64 {
	u := binary.BigEndian.Uint64([]byte(enc))
	if u>>63 == 1 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	return math.Float64frombits(u)
}
