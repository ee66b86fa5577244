package store

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"unsafe"
)

// A short list lives inside its metadata item (list_inline.go). Longer
// lists keep one item per element under the key's data prefix, followed by
// 'e' and the element's 64-bit big-endian sequence number, so item order is
// list order. The metadata payload holds the head sequence and the length;
// the elements always occupy head .. head+length-1 without holes, so an index
// is one lookup away and pushes at either end only move head or the length.
// Operations that would leave a hole (LINSERT, LREM) shift the elements on
// one side instead.
//
// A new list starts in the middle of the sequence space so that both ends can
// grow by 2^63 elements.

const listElemTag = "e"

const listStart = uint64(1) << 63

// Errors of list operations; commands reply "ERR " + the text.
var (
	ErrNoSuchKey  = errors.New("no such key")
	ErrIndexRange = errors.New("index out of range")
)

type listHeader struct {
	head uint64
	n    int64
}

func (h listHeader) encode() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], h.head)
	binary.BigEndian.PutUint64(b[8:], uint64(h.n))
	return string(b[:])
}

func decodeListHeader(p string) listHeader {
	if len(p) < 16 {
		return listHeader{head: listStart}
	}
	return listHeader{
		head: binary.BigEndian.Uint64([]byte(p[:8])),
		n:    int64(binary.BigEndian.Uint64([]byte(p[8:16]))),
	}
}

// list is one list key loaded for an operation.
type list struct {
	tx      *Tx
	key     string
	db      int
	prefix  string // data prefix + element tag, made on first use: inline lists never need it
	meta    Meta
	existed bool
	h       listHeader
	inline  bool     // elements live in the payload, in vals
	vals    []string // the inline elements
	size    int      // encoded size of vals
}

// releaseList hands l back for the transaction's next loadList to reuse
// with its element array; l must not be used afterwards.
func (tx *Tx) releaseList(l *list) {
	*l = list{vals: l.vals[:0]}
	tx.freeList = l
}

// loadList finds key as a list. A missing key gives an empty list that
// exists == false; another type gives ErrWrongType.
func (tx *Tx) loadList(key string) (*list, error) {
	m, ok, err := tx.lookupType(key, TypeList)
	if err != nil {
		return nil, err
	}
	l := tx.freeList
	if l != nil {
		tx.freeList = nil
		*l = list{tx: tx, key: key, db: tx.sel, meta: m, existed: ok, vals: l.vals[:0]}
	} else {
		l = &list{tx: tx, key: key, db: tx.sel, meta: m, existed: ok}
	}
	switch {
	case !ok:
		l.h = listHeader{head: listStart}
		l.inline = true
	case listPayloadInline(m.Payload):
		l.inline = true
		l.vals, l.size = decodeListInline(l.vals, m.Payload)
		l.h = listHeader{head: listStart, n: int64(len(l.vals))}
	default:
		l.h = decodeListHeader(m.Payload)
	}
	return l, nil
}

func (l *list) elemPrefix() string {
	if l.prefix == "" {
		l.prefix = dataPrefix(l.db, l.key) + listElemTag
	}
	return l.prefix
}

// elemKey builds an element's key in one allocation: buntdb keeps it.
func (l *list) elemKey(seq uint64) string {
	p := l.elemPrefix()
	b := make([]byte, 0, len(p)+8)
	b = append(b, p...)
	b = binary.BigEndian.AppendUint64(b, seq)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (l *list) get(i int64) string {
	if l.inline {
		return l.vals[i]
	}
	v, _ := l.tx.rawGet(l.elemKey(l.h.head + uint64(i)))
	return v
}

func (l *list) set(i int64, v string) {
	if l.inline {
		l.inlineSet(i, v)
		return
	}
	l.tx.rawSet(l.elemKey(l.h.head+uint64(i)), strings.Clone(v))
}

// each calls fn for the elements from index start to stop inclusive (both
// within range), forwards or backwards; fn returns false to stop.
func (l *list) each(start, stop int64, reverse bool, fn func(i int64, v string) bool) {
	if l.h.n == 0 || start > stop {
		return
	}
	if l.inline {
		if reverse {
			for i := stop; i >= start; i-- {
				if !fn(i, l.vals[i]) {
					return
				}
			}
			return
		}
		for i := start; i <= stop; i++ {
			if !fn(i, l.vals[i]) {
				return
			}
		}
		return
	}
	lo, hi := l.elemKey(l.h.head+uint64(start)), l.elemKey(l.h.head+uint64(stop))
	i := start
	if reverse {
		i = stop
		// Element keys all have one length, so the prefix alone sorts
		// before every element.
		below := l.elemPrefix()
		if seq := l.h.head + uint64(start); seq > 0 {
			below = l.elemKey(seq - 1)
		}
		l.tx.btx.DescendRange("", hi, below, func(k, v string) bool {
			ok := fn(i, v)
			i--
			return ok
		})
		return
	}
	l.tx.btx.AscendRange("", lo, hi+"\x00", func(k, v string) bool {
		ok := fn(i, v)
		i++
		return ok
	})
}

// values returns the elements from start to stop inclusive.
func (l *list) values(start, stop int64) []string {
	if start > stop {
		return nil
	}
	out := make([]string, 0, stop-start+1)
	l.each(start, stop, false, func(_ int64, v string) bool {
		out = append(out, v)
		return true
	})
	return out
}

func (l *list) push(v string, left bool) {
	if l.inline {
		l.inlinePush(v, left)
		return
	}
	if left {
		l.h.head--
		l.h.n++
		l.set(0, v)
		return
	}
	l.h.n++
	l.set(l.h.n-1, v)
}

func (l *list) pop(left bool) string {
	if l.inline {
		return l.inlinePop(left)
	}
	i := l.h.n - 1
	if left {
		i = 0
	}
	k := l.elemKey(l.h.head + uint64(i))
	v, _ := l.tx.rawGet(k)
	l.tx.rawDelete(k)
	if left {
		l.h.head++
	}
	l.h.n--
	return v
}

// save writes the header back, or deletes the key when the list is empty.
func (l *list) save() {
	if l.h.n == 0 {
		if l.existed {
			l.tx.remove(l.key, l.meta)
			l.existed = false
		}
		return
	}
	if l.inline && (l.h.n > listInlineMaxEntries || l.size > listInlineMaxBytes) {
		l.spill()
	} else if !l.inline {
		l.unspill()
	}
	if l.inline {
		l.saveInline()
		return
	}
	nm := Meta{Type: TypeList, ExpireAt: l.meta.ExpireAt, Payload: l.h.encode()}
	l.tx.putMeta(l.key, l.meta, l.existed, nm)
	l.meta, l.existed = nm, true
}

// ListPush adds vals one by one at the head (left) or tail and returns the
// new length. It copies what it keeps, so vals may share the bytes of a
// buffer the caller reuses. With onlyExisting (LPUSHX, RPUSHX) a missing key stays missing
// and the result is 0.
func (tx *Tx) ListPush(key string, vals []string, left, onlyExisting bool) (int64, error) {
	l, err := tx.loadList(key)
	if err != nil {
		return 0, err
	}
	defer tx.releaseList(l)
	if !l.existed && onlyExisting {
		return 0, nil
	}
	for _, v := range vals {
		l.push(v, left)
	}
	l.save()
	return l.h.n, nil
}

// ListPop removes up to count elements from one end. exists is false when
// the key is missing.
func (tx *Tx) ListPop(key string, left bool, count int64) (vals []string, exists bool, err error) {
	l, err := tx.loadList(key)
	if err != nil || !l.existed {
		return nil, false, err
	}
	defer tx.releaseList(l)
	if count > l.h.n {
		count = l.h.n
	}
	vals = make([]string, 0, count)
	for int64(len(vals)) < count {
		vals = append(vals, l.pop(left))
	}
	if count > 0 {
		l.save()
	}
	return vals, true, nil
}

// ListLen returns the length of a list, 0 when missing.
func (tx *Tx) ListLen(key string) (int64, error) {
	l, err := tx.loadList(key)
	if err != nil {
		return 0, err
	}
	return l.h.n, nil
}

// ClampRange applies Redis's start/stop index rules (LRANGE, LTRIM, ZRANGE
// by rank): negative indexes count from the end, then the range is clamped
// to [0, n); ok is false when it is empty.
func ClampRange(start, stop, n int64) (int64, int64, bool) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0, false
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop, true
}

// ListRange returns the elements from start to stop, with Redis's negative
// indexes and clamping.
func (tx *Tx) ListRange(key string, start, stop int64) ([]string, error) {
	l, err := tx.loadList(key)
	if err != nil {
		return nil, err
	}
	defer tx.releaseList(l)
	start, stop, ok := ClampRange(start, stop, l.h.n)
	if !ok {
		return []string{}, nil
	}
	return l.values(start, stop), nil
}

// normIndex turns a possibly negative index into a position, ok false when
// out of range.
func normIndex(i, n int64) (int64, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

// ListIndex returns the element at index i.
func (tx *Tx) ListIndex(key string, i int64) (string, bool, error) {
	l, err := tx.loadList(key)
	if err != nil {
		return "", false, err
	}
	defer tx.releaseList(l)
	i, ok := normIndex(i, l.h.n)
	if !ok {
		return "", false, nil
	}
	return l.get(i), true, nil
}

// ListSet replaces the element at index i; ErrNoSuchKey or ErrIndexRange
// when there is none.
func (tx *Tx) ListSet(key string, i int64, v string) error {
	l, err := tx.loadList(key)
	if err != nil {
		return err
	}
	if !l.existed {
		return ErrNoSuchKey
	}
	i, ok := normIndex(i, l.h.n)
	if !ok {
		return ErrIndexRange
	}
	l.set(i, v)
	l.save()
	return nil
}

// ListTrim keeps the elements from start to stop only.
func (tx *Tx) ListTrim(key string, start, stop int64) error {
	l, err := tx.loadList(key)
	if err != nil || !l.existed {
		return err
	}
	defer tx.releaseList(l)
	start, stop, ok := ClampRange(start, stop, l.h.n)
	if !ok {
		start, stop = l.h.n, l.h.n-1
	}
	if l.inline {
		l.inlineKeep(func(i int64) bool { return i >= start && i <= stop })
		l.save()
		return nil
	}
	for i := int64(0); i < start; i++ {
		tx.rawDelete(l.elemKey(l.h.head + uint64(i)))
	}
	for i := stop + 1; i < l.h.n; i++ {
		tx.rawDelete(l.elemKey(l.h.head + uint64(i)))
	}
	l.h.head += uint64(start)
	l.h.n = stop - start + 1
	l.save()
	return nil
}

// ListInsert puts v before or after the first element equal to pivot. It
// returns the new length, -1 when pivot is absent, 0 when the key is.
func (tx *Tx) ListInsert(key string, before bool, pivot, v string) (int64, error) {
	l, err := tx.loadList(key)
	if err != nil || !l.existed {
		return 0, err
	}
	at := int64(-1)
	l.each(0, l.h.n-1, false, func(i int64, e string) bool {
		if e == pivot {
			at = i
			return false
		}
		return true
	})
	if at < 0 {
		return -1, nil
	}
	if !before {
		at++
	}
	l.insertAt(at, v)
	l.save()
	return l.h.n, nil
}

// insertAt makes v the element at index at, shifting the shorter side.
func (l *list) insertAt(at int64, v string) {
	if l.inline {
		l.vals = slices.Insert(l.vals, int(at), v)
		l.size += packedSize(v)
		l.h.n++
		return
	}
	if at <= l.h.n-at {
		// Move elements 0..at-1 one place towards the head.
		vals := l.values(0, at-1)
		l.h.head--
		l.h.n++
		for i, e := range vals {
			l.set(int64(i), e)
		}
	} else {
		vals := l.values(at, l.h.n-1)
		l.h.n++
		for i, e := range vals {
			l.set(at+1+int64(i), e)
		}
	}
	l.set(at, v)
}

// ListRem removes up to |count| elements equal to v, from the head when
// count > 0, from the tail when count < 0, all of them when 0. It returns
// how many were removed.
func (tx *Tx) ListRem(key string, count int64, v string) (int64, error) {
	l, err := tx.loadList(key)
	if err != nil || !l.existed {
		return 0, err
	}
	limit := count
	if limit < 0 {
		if limit == math.MinInt64 {
			limit = math.MaxInt64
		} else {
			limit = -limit
		}
	}
	var hits []int64 // ascending indexes to remove
	l.each(0, l.h.n-1, count < 0, func(i int64, e string) bool {
		if e == v {
			hits = append(hits, i)
			if limit != 0 && int64(len(hits)) == limit {
				return false
			}
		}
		return true
	})
	if len(hits) == 0 {
		return 0, nil
	}
	if count < 0 {
		for i, j := 0, len(hits)-1; i < j; i, j = i+1, j-1 {
			hits[i], hits[j] = hits[j], hits[i]
		}
	}
	l.removeAt(hits)
	l.save()
	return int64(len(hits)), nil
}

// removeAt deletes the elements at the ascending indexes and closes the
// gaps, moving whichever side of the removed span is shorter.
func (l *list) removeAt(hits []int64) {
	first, last := hits[0], hits[len(hits)-1]
	removed := make(map[int64]bool, len(hits))
	for _, i := range hits {
		removed[i] = true
	}
	if l.inline {
		l.inlineKeep(func(i int64) bool { return !removed[i] })
		return
	}
	n := l.h.n
	if first < n-1-last {
		// Keep the tail in place: repack 0..last towards the tail.
		keep := make([]string, 0, last+1)
		l.each(0, last, false, func(i int64, e string) bool {
			if !removed[i] {
				keep = append(keep, e)
			}
			return true
		})
		for i := int64(0); i <= last; i++ {
			l.tx.rawDelete(l.elemKey(l.h.head + uint64(i)))
		}
		shift := int64(len(hits))
		l.h.head += uint64(shift)
		l.h.n -= shift
		for i, e := range keep {
			l.set(int64(i), e)
		}
		return
	}
	keep := make([]string, 0, n-first)
	l.each(first, n-1, false, func(i int64, e string) bool {
		if !removed[i] {
			keep = append(keep, e)
		}
		return true
	})
	for i := first; i < n; i++ {
		l.tx.rawDelete(l.elemKey(l.h.head + uint64(i)))
	}
	l.h.n -= int64(len(hits))
	for i, e := range keep {
		l.set(first+int64(i), e)
	}
}

// ListPos returns the indexes of elements equal to v as LPOS does: rank
// picks the first match to report (negative counts from the tail), count
// limits how many (0 for all), maxlen limits how many elements are compared
// (0 for all).
func (tx *Tx) ListPos(key, v string, rank, count, maxlen int64) ([]int64, error) {
	l, err := tx.loadList(key)
	if err != nil || !l.existed {
		return nil, err
	}
	reverse := rank < 0
	skip := rank - 1
	if reverse {
		skip = -rank - 1
		if rank == math.MinInt64 {
			// Redis negates in place and overflows back to a negative rank,
			// which every match passes.
			skip = 0
		}
	}
	var out []int64
	compared := int64(0)
	l.each(0, l.h.n-1, reverse, func(i int64, e string) bool {
		if maxlen != 0 && compared >= maxlen {
			return false
		}
		compared++
		if e != v {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		out = append(out, i)
		return count == 0 || int64(len(out)) < count
	})
	return out, nil
}

// ListMove pops from one end of src and pushes onto one end of dst (LMOVE).
// ok is false when src is missing; dst of another type is ErrWrongType and
// nothing changes.
func (tx *Tx) ListMove(src, dst string, fromLeft, toLeft bool) (string, bool, error) {
	s, err := tx.loadList(src)
	if err != nil || !s.existed {
		return "", false, err
	}
	if src == dst {
		v := s.pop(fromLeft)
		s.push(v, toLeft)
		s.save()
		return v, true, nil
	}
	d, err := tx.loadList(dst)
	if err != nil {
		return "", false, err
	}
	v := s.pop(fromLeft)
	s.save()
	d.push(v, toLeft)
	d.save()
	return v, true, nil
}

// ListIsType reports whether key is missing or a list, for commands that
// must check several keys before writing any.
func (tx *Tx) ListIsType(key string) error {
	_, _, err := tx.lookupType(key, TypeList)
	return err
}
