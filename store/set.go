package store

import "sort"

// A set keeps its cardinality and flags (see packed.go) in the metadata
// payload. A small set keeps its members there too, after the header, as
// packed strings in byte order; a large one keeps each member as one item:
//
//	dataPrefix(db,key) 'm' <member> -> ""
//
// The big flag mirrors Redis 7.0's intset/hashtable choice (integers only,
// at most 512 members; once converted a set stays a hashtable): an intset
// replies in numeric order and SSCAN returns it whole. An intset is always
// inline; a hashtable set stays inline while it is small, then moves to items
// for good. Byte order keeps SSCAN's cursor working in either layout.
const (
	setMemberTag = 'm'
	setMaxIntset = 512

	setInlineMaxEntries = 128
	setInlineMaxBytes   = 4096
)

func setMembersPrefix(db int, key string) string {
	return dataPrefix(db, key) + string(rune(setMemberTag))
}

// setWriter batches changes to one set and writes its metadata once.
type setWriter struct {
	tx      *Tx
	key     string
	db      int
	prefix  string // made on first use: an inline set never needs it
	old     Meta
	existed bool
	h       collHeader
	mems    []string // sorted members while h.inline()
	size    int      // encoded size of mems
}

func (tx *Tx) openSet(key string) (*setWriter, error) {
	m, ok, err := tx.lookupType(key, TypeSet)
	if err != nil {
		return nil, err
	}
	w := &setWriter{tx: tx, key: key, db: tx.sel, old: m, existed: ok}
	if !ok {
		w.h.flags = flagInline
		return w, nil
	}
	h, i := decodeCollHeader(m.Payload)
	w.h = h
	if h.inline() {
		w.mems = make([]string, 0, h.count+1)
		forEachPacked(m.Payload, i, func(s string, size int) bool {
			w.mems = append(w.mems, s)
			w.size += size
			return true
		})
		w.h.count = int64(len(w.mems))
	}
	return w, nil
}

func (w *setWriter) memberKey(member string) string {
	if w.prefix == "" {
		w.prefix = setMembersPrefix(w.db, w.key)
	}
	return w.prefix + member
}

// forEachPacked walks the packed strings of p from index i; size is the
// string's encoded length. A damaged tail is ignored.
func forEachPacked(p string, i int, fn func(s string, size int) bool) {
	for i < len(p) {
		s, j, ok := readPacked(p, i)
		if !ok || !fn(s, j-i) {
			return
		}
		i = j
	}
}

func (w *setWriter) has(member string) bool {
	if w.h.inline() {
		i := sort.SearchStrings(w.mems, member)
		return i < len(w.mems) && w.mems[i] == member
	}
	_, had := w.tx.rawGet(w.memberKey(member))
	return had
}

func (w *setWriter) add(member string) bool {
	if w.h.inline() {
		i := sort.SearchStrings(w.mems, member)
		if i < len(w.mems) && w.mems[i] == member {
			return false
		}
		w.mems = append(w.mems, "")
		copy(w.mems[i+1:], w.mems[i:])
		w.mems[i] = member
		w.size += packedSize(member)
	} else {
		k := w.memberKey(member)
		if _, had := w.tx.rawGet(k); had {
			return false
		}
		w.tx.rawSet(k, "")
	}
	w.h.count++
	if !w.h.big() {
		if _, isInt := parseStrictInt(member); !isInt || w.h.count > setMaxIntset {
			w.h.flags |= flagBig
		}
	}
	if w.h.inline() && w.h.big() && (w.h.count > setInlineMaxEntries || w.size > setInlineMaxBytes) {
		for _, m := range w.mems {
			w.tx.rawSet(w.memberKey(m), "")
		}
		w.mems, w.size = nil, 0
		w.h.flags &^= flagInline
	}
	return true
}

func (w *setWriter) rem(member string) bool {
	if w.h.inline() {
		i := sort.SearchStrings(w.mems, member)
		if i == len(w.mems) || w.mems[i] != member {
			return false
		}
		w.size -= packedSize(member)
		w.mems = append(w.mems[:i], w.mems[i+1:]...)
	} else if !w.tx.rawDelete(w.memberKey(member)) {
		return false
	}
	w.h.count--
	return true
}

// commit writes the metadata, deleting the key when no member is left.
func (w *setWriter) commit() {
	if w.h.count <= 0 {
		if w.existed {
			w.tx.remove(w.key, w.old)
		}
		return
	}
	b := appendCollMeta(make([]byte, 0, collMetaSize(w.h, w.size)), TypeSet, w.old.ExpireAt, w.h)
	for _, m := range w.mems {
		b = appendPacked(b, m)
	}
	w.tx.commitColl(w.key, b)
}

// SAdd adds members and returns how many were new. It copies what it
// keeps, so members may share the bytes of a buffer the caller reuses.
func (tx *Tx) SAdd(key string, members ...string) (int64, error) {
	w, err := tx.openSet(key)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, m := range members {
		if w.add(m) {
			n++
		}
	}
	if n > 0 {
		w.commit()
	}
	return n, nil
}

// SRem removes members and returns how many were there.
func (tx *Tx) SRem(key string, members ...string) (int64, error) {
	w, err := tx.openSet(key)
	if err != nil || !w.existed {
		return 0, err
	}
	var n int64
	for _, m := range members {
		if w.rem(m) {
			n++
		}
	}
	if n > 0 {
		w.commit()
	}
	return n, nil
}

// SCard returns the number of members (0 for a missing key).
func (tx *Tx) SCard(key string) (int64, error) {
	m, ok, err := tx.lookupType(key, TypeSet)
	if !ok || err != nil {
		return 0, err
	}
	h, _ := decodeCollHeader(m.Payload)
	return h.count, nil
}

// SIsMember reports whether member is in the set.
func (tx *Tx) SIsMember(key, member string) (bool, error) {
	m, ok, err := tx.lookupType(key, TypeSet)
	if !ok || err != nil {
		return false, err
	}
	h, i := decodeCollHeader(m.Payload)
	if !h.inline() {
		_, had := tx.rawGet(setMembersPrefix(tx.sel, key) + member)
		return had, nil
	}
	found := false
	forEachPacked(m.Payload, i, func(s string, _ int) bool {
		found = s == member
		return !found && s < member
	})
	return found, nil
}

// SIterate calls fn for each member >= from in byte order; fn returns false
// to stop. It reports whether the key exists.
func (tx *Tx) SIterate(key, from string, fn func(member string) bool) (bool, error) {
	m, ok, err := tx.lookupType(key, TypeSet)
	if !ok || err != nil {
		return false, err
	}
	h, i := decodeCollHeader(m.Payload)
	if h.inline() {
		forEachPacked(m.Payload, i, func(s string, _ int) bool { return s < from || fn(s) })
		return true, nil
	}
	prefix := setMembersPrefix(tx.sel, key)
	tx.ascendSuffixFrom(prefix, from, func(k, _ string) bool { return fn(k[len(prefix):]) })
	return true, nil
}

// SMembers returns the members in byte order and whether the key exists.
func (tx *Tx) SMembers(key string) ([]string, bool, error) {
	var out []string
	ok, err := tx.SIterate(key, "", func(m string) bool {
		out = append(out, m)
		return true
	})
	return out, ok, err
}

// SIntset reports whether the set would be an intset on Redis.
func (tx *Tx) SIntset(key string) (bool, error) {
	m, ok, err := tx.lookupType(key, TypeSet)
	if !ok || err != nil {
		return false, err
	}
	h, _ := decodeCollHeader(m.Payload)
	return !h.big(), nil
}

// SMove moves member from src to dst. It returns ErrWrongType when either
// existing key is not a set, unless src is missing (Redis checks src first).
func (tx *Tx) SMove(src, dst, member string) (bool, error) {
	sw, err := tx.openSet(src)
	if err != nil {
		return false, err
	}
	if !sw.existed {
		return false, nil
	}
	if _, _, err := tx.lookupType(dst, TypeSet); err != nil {
		return false, err
	}
	if src == dst {
		return sw.has(member), nil
	}
	if !sw.rem(member) {
		return false, nil
	}
	sw.commit()
	dw, err := tx.openSet(dst)
	if err != nil {
		return false, err
	}
	if dw.add(member) {
		dw.commit()
	} else {
		tx.touch(dst)
	}
	return true, nil
}

// SStore replaces dst, of any type, with a set of members (deleting it when
// members is empty) and returns the new cardinality. The set's encoding is
// what Redis gives a set built by adding members in the given order.
func (tx *Tx) SStore(dst string, members []string) int {
	tx.Delete(dst)
	if len(members) == 0 {
		return 0
	}
	w, _ := tx.openSet(dst)
	for _, m := range members {
		w.add(m)
	}
	w.commit()
	return int(w.h.count)
}
