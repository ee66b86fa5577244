package store

import (
	"encoding/binary"
	"math"
	"sort"
	"strings"
	"unsafe"
)

// A small sorted set keeps its members inside the metadata payload, as
// Redis keeps one in a listpack: one buntdb item instead of one per member.
// The payload is
//
//	zInlineMark <uvarint count> { <8-byte ordered score> <packed member> }
//
// in (score, member) order, so a range query is a walk of the payload. Its
// shortest form (one empty member) is 11 bytes, so it never has the 8-byte
// length of the cardinality header that a set kept as items carries, which is
// how payloads written before inline storage existed still read.
//
// The limit is on bytes, not on Redis's 128 entries of up to 64 bytes (which
// no reply shows): every change rewrites the whole payload, in buntdb and in
// the data file, where Redis moves bytes within its listpack. Measured with
// 32-byte members, a score change and an add-and-remove cost, inline
// against as items: at 12 members (0.5 KB) 1.0-1.1 and 1.7-2.1 us against
// 0.9 and 1.2 us; at 50 (2 KB) 1.6-1.9 and 3.2-3.5 us, allocating 4 and
// 10 KB, against 1.0 and 1.4 us. qless keeps a worker's running jobs and a
// queue's locks in sorted sets changed on every pop, heartbeat and
// completion. Once past the limit a set stays in items until it is
// emptied, as Redis never converts a skiplist back.
const (
	zInlineMark      = 'Z'
	zItemsPayloadLen = 8   // the payload of a set kept as items
	zInlineMaxBytes  = 512 // of scores and packed members
)

// decodeZInline parses an inline payload into entries; a damaged tail is
// ignored.
func decodeZInline(buf []Entry, p string) []Entry {
	n, i, ok := readUvarint(p, 1)
	if !ok {
		return buf[:0]
	}
	out := buf[:0]
	if want := int(min(n, uint64(len(p)/9+1))); cap(out) < want {
		out = make([]Entry, 0, want)
	}
	for i+8 <= len(p) {
		score := decodeScore(p[i : i+8])
		m, next, ok := readPacked(p, i+8)
		if !ok {
			break
		}
		out = append(out, Entry{Member: m, Score: score})
		i = next
	}
	return out
}

// zInlineScore finds member in an inline payload without decoding the
// others, for a lookup on a set not otherwise read.
func zInlineScore(p, member string) (float64, bool) {
	_, i, ok := readUvarint(p, 1)
	if !ok {
		return 0, false
	}
	for i+8 <= len(p) {
		m, next, ok := readPacked(p, i+8)
		if !ok {
			break
		}
		if m == member {
			return decodeScore(p[i : i+8]), true
		}
		i = next
	}
	return 0, false
}

// zInlineCount reads the member count of an inline payload without decoding
// the members.
func zInlineCount(p string) int64 {
	n, _, _ := readUvarint(p, 1)
	return int64(n)
}

// entryCompare orders entries as Redis does: by score, then member bytes.
func entryCompare(a Entry, score float64, member string) int {
	switch {
	case a.Score < score:
		return -1
	case a.Score > score:
		return 1
	}
	return strings.Compare(a.Member, member)
}

// ents returns the inline entries, decoding the payload on first use.
func (z *ZSet) ents() []Entry {
	if !z.loaded {
		z.list = decodeZInline(z.list, z.meta.Payload)
		z.loaded = true
		z.size = zInlineBytes(z.list)
		// A damaged payload may hold fewer members than its count says.
		if n := int64(len(z.list)); n != z.card {
			z.card = n
		}
	}
	return z.list
}

// inlineFind returns the index of member in the inline entries, or -1.
func (z *ZSet) inlineFind(member string) int {
	for i, e := range z.ents() {
		if e.Member == member {
			return i
		}
	}
	return -1
}

// inlineSearch returns the index of the first entry not below (score,
// member).
func (z *ZSet) inlineSearch(score float64, member string) int {
	es := z.ents()
	return sort.Search(len(es), func(i int) bool { return entryCompare(es[i], score, member) >= 0 })
}

func (z *ZSet) inlineInsert(member string, score float64) {
	i := z.inlineSearch(score, member)
	z.list = append(z.list, Entry{})
	copy(z.list[i+1:], z.list[i:])
	z.list[i] = Entry{Member: member, Score: score}
	z.size += 8 + packedSize(member)
}

func (z *ZSet) inlineDelete(i int) {
	z.size -= 8 + packedSize(z.list[i].Member)
	z.list = append(z.list[:i], z.list[i+1:]...)
}

// spill moves the inline members to an index, for good. The members are
// copied: they may share the payload's bytes or a caller's buffer.
func (z *ZSet) spill() {
	z.tx.mutating()
	es := z.ents()
	ix := newZIndex(len(es))
	jr, k := z.tx.db.jr, dbKey{z.db, z.key}
	for _, e := range es {
		m := strings.Clone(e.Member)
		ix.insert(m, e.Score)
		jr.addSetMember(k, m, e.Score)
	}
	z.setIndex(ix)
	z.inline, z.list, z.loaded = false, nil, false
	z.headerStale = true
}

// zInlineBytes is what entries take in an inline payload, past its count.
func zInlineBytes(es []Entry) int {
	n := 0
	for _, e := range es {
		n += 8 + packedSize(e.Member)
	}
	return n
}

// flushInline writes the metadata item with the members inside.
func (z *ZSet) flushInline() {
	size := 1 + uvarintLen(uint64(len(z.list))) + z.size
	b := make([]byte, 0, metaHeader+size)
	b = append(b, byte(TypeZSet))
	b = binary.BigEndian.AppendUint64(b, uint64(z.meta.ExpireAt))
	b = append(b, zInlineMark)
	b = binary.AppendUvarint(b, uint64(len(z.list)))
	for _, e := range z.list {
		b = binary.BigEndian.AppendUint64(b, orderedScore(e.Score))
		b = appendPacked(b, e.Member)
	}
	// The expiry is unchanged (a new key has none), so commitColl's
	// shortcut applies.
	z.tx.commitColl(z.key, b)
	nm := Meta{Type: TypeZSet, ExpireAt: z.meta.ExpireAt, Payload: unsafe.String(&b[metaHeader], len(b)-metaHeader)}
	z.meta, z.existed = nm, true
}

// inlineWalk calls fn for entries from index i forwards (or backwards),
// counting visits; it walks a snapshot, so fn may not see its own writes.
func (z *ZSet) inlineWalk(i int, reverse bool, fn func(Entry) bool) {
	es := z.ents()
	step := 1
	if reverse {
		step = -1
	}
	for ; i >= 0 && i < len(es); i += step {
		z.visits++
		if !fn(es[i]) {
			return
		}
	}
}

// inlineRangeByScore walks the entries inside a score range.
func (z *ZSet) inlineRangeByScore(min, max ScoreBound, reverse bool, fn func(Entry) bool) {
	es := z.ents()
	lo := sort.Search(len(es), func(i int) bool {
		if min.Excl {
			return es[i].Score > min.Value
		}
		return es[i].Score >= min.Value
	})
	hi := sort.Search(len(es), func(i int) bool {
		if max.Excl {
			return es[i].Score >= max.Value
		}
		return es[i].Score > max.Value
	}) // entries lo..hi-1 are in range
	if lo >= hi {
		return
	}
	start := lo
	if reverse {
		start = hi - 1
	}
	n := hi - lo
	z.inlineWalk(start, reverse, func(e Entry) bool {
		n--
		return fn(e) && n > 0
	})
}

// inlineMembers walks the entries in member order from the first member >=
// from.
func (z *ZSet) inlineMembers(from string, fn func(Entry) bool) {
	es := append([]Entry(nil), z.ents()...)
	sort.Slice(es, func(i, j int) bool { return es[i].Member < es[j].Member })
	i := sort.Search(len(es), func(i int) bool { return es[i].Member >= from })
	for ; i < len(es); i++ {
		z.visits++
		if !fn(es[i]) {
			return
		}
	}
}

func (z *ZSet) putInline(member string, score float64) bool {
	i := z.inlineFind(member)
	if i >= 0 {
		if math.Float64bits(z.list[i].Score) == math.Float64bits(score) {
			return false
		}
		z.inlineDelete(i)
	}
	z.inlineInsert(member, score)
	z.dirty = true
	if i < 0 {
		z.card++
	}
	if z.size > zInlineMaxBytes {
		z.spill()
	}
	return i < 0
}

// zsetPayloadInline reports whether a sorted set's payload holds its
// members (else they are items).
func zsetPayloadInline(p string) bool {
	return len(p) != zItemsPayloadLen && len(p) > 0 && p[0] == zInlineMark
}
