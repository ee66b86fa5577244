package store

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A hash keeps its field count and flags (see packed.go) in the metadata
// payload, so HLEN is O(1). A small hash keeps its fields there too, after
// the header, as packed field/value pairs; a large one keeps each field as
// one item:
//
//	dataPrefix(db,key) 'f' <field> -> value
//
// The big flag mirrors Redis's listpack/hashtable choice (hash-max-listpack-
// entries 512 and -value 64, Redis 7.0's built-in defaults; once converted a
// hash stays a hashtable), because it decides observable behaviour: a
// listpack replies in insertion order and HSCAN returns it whole. A listpack
// hash is always inline, in insertion order. A hashtable hash stays inline,
// sorted by field so that HSCAN's byte-order cursor works, while it is small
// (qless job hashes carry long JSON values that make Redis use a hashtable);
// past that it moves to items for good.
const (
	hashFieldTag     = 'f'
	hashMaxCompact   = 512
	hashMaxCompactSz = 64

	hashInlineMaxEntries = 128
	hashInlineMaxBytes   = 4096
)

// Errors of hash arithmetic, turned into Redis's texts by the commands.
var (
	ErrHashNotInt = errors.New("hash value is not an integer")
	ErrOverflow   = errors.New("increment or decrement would overflow")
)

func hashFieldKey(db int, key, field string) string {
	return dataPrefix(db, key) + string(rune(hashFieldTag)) + field
}

func hashFieldsPrefix(db int, key string) string {
	return dataPrefix(db, key) + string(rune(hashFieldTag))
}

type hashEntry struct{ f, v string }

// hashWriter batches changes to one hash and writes its metadata once.
type hashWriter struct {
	tx      *Tx
	key     string
	old     Meta
	existed bool
	h       collHeader
	ents    []hashEntry // the fields while h.inline()
	size    int         // encoded size of ents
}

func (tx *Tx) openHash(key string) (*hashWriter, error) {
	w := new(hashWriter)
	return w, tx.initHash(w, key)
}

// borrowHash returns a writer for one hash operation, reusing the one the
// transaction's previous operation released, entries' array included: a
// qless script writes its job hash, of some twenty fields, several times.
func (tx *Tx) borrowHash() *hashWriter {
	if w := tx.freeHash; w != nil {
		tx.freeHash = nil
		return w
	}
	return new(hashWriter)
}

// releaseHash hands w back once its operation is over.
func (tx *Tx) releaseHash(w *hashWriter) { tx.freeHash = w }

// initHash is openHash into w, keeping the capacity of w.ents.
func (tx *Tx) initHash(w *hashWriter, key string) error {
	m, ok, err := tx.lookupType(key, TypeHash)
	if err != nil {
		return err
	}
	*w = hashWriter{tx: tx, key: key, old: m, existed: ok, ents: w.ents[:0]}
	if !ok {
		w.h.flags = flagInline
		return nil
	}
	h, i := decodeCollHeader(m.Payload)
	w.h = h
	if h.inline() {
		if h.count+1 > int64(cap(w.ents)) {
			w.ents = make([]hashEntry, 0, h.count+1)
		}
		forEachPair(m.Payload, i, func(f, v string, size int) bool {
			w.ents = append(w.ents, hashEntry{f, v})
			w.size += size
			return true
		})
		w.h.count = int64(len(w.ents))
	}
	return nil
}

// forEachPair walks the packed field/value pairs of p from index i; size is
// the pair's encoded length. A damaged tail is ignored.
func forEachPair(p string, i int, fn func(f, v string, size int) bool) {
	for i < len(p) {
		f, j, ok := readPacked(p, i)
		if !ok {
			return
		}
		v, k, ok := readPacked(p, j)
		if !ok || !fn(f, v, k-i) {
			return
		}
		i = k
	}
}

// find returns the index of field in ents, or -1.
func (w *hashWriter) find(field string) int {
	if w.h.big() {
		i := sort.Search(len(w.ents), func(i int) bool { return w.ents[i].f >= field })
		if i < len(w.ents) && w.ents[i].f == field {
			return i
		}
		return -1
	}
	for i := range w.ents {
		if w.ents[i].f == field {
			return i
		}
	}
	return -1
}

func (w *hashWriter) get(field string) (string, bool) {
	if !w.h.inline() {
		return w.tx.rawGet(hashFieldKey(w.tx.sel, w.key, field))
	}
	if i := w.find(field); i >= 0 {
		return w.ents[i].v, true
	}
	return "", false
}

// set stores one field and reports whether it was new. An existing field
// keeps its position.
func (w *hashWriter) set(field, val string) bool {
	added := false
	if w.h.inline() {
		if i := w.find(field); i >= 0 {
			w.size += packedSize(val) - packedSize(w.ents[i].v)
			w.ents[i].v = val
		} else {
			w.insert(hashEntry{field, val})
			added = true
		}
	} else {
		added = !w.tx.rawSet(hashFieldKey(w.tx.sel, w.key, field), strings.Clone(val))
	}
	if added {
		w.h.count++
	}
	if !w.h.big() && (len(field) > hashMaxCompactSz || len(val) > hashMaxCompactSz || w.h.count > hashMaxCompact) {
		w.toHashtable()
	}
	if w.h.inline() && w.h.big() && (w.h.count > hashInlineMaxEntries || w.size > hashInlineMaxBytes) {
		w.spill()
	}
	return added
}

// insert adds a new entry: last for a listpack, in field order otherwise.
func (w *hashWriter) insert(e hashEntry) {
	w.size += packedSize(e.f) + packedSize(e.v)
	if !w.h.big() {
		w.ents = append(w.ents, e)
		return
	}
	i := sort.Search(len(w.ents), func(i int) bool { return w.ents[i].f >= e.f })
	w.ents = append(w.ents, hashEntry{})
	copy(w.ents[i+1:], w.ents[i:])
	w.ents[i] = e
}

// toHashtable makes the hash a hashtable, as Redis converts a listpack.
func (w *hashWriter) toHashtable() {
	w.h.flags |= flagBig
	if w.h.inline() {
		slices.SortFunc(w.ents, func(a, b hashEntry) int { return strings.Compare(a.f, b.f) })
	}
}

// spill moves inline fields to one item each.
func (w *hashWriter) spill() {
	for _, e := range w.ents {
		w.tx.rawSet(hashFieldKey(w.tx.sel, w.key, e.f), strings.Clone(e.v))
	}
	w.ents, w.size = nil, 0
	w.h.flags &^= flagInline
}

func (w *hashWriter) del(field string) bool {
	if w.h.inline() {
		i := w.find(field)
		if i < 0 {
			return false
		}
		w.size -= packedSize(w.ents[i].f) + packedSize(w.ents[i].v)
		w.ents = append(w.ents[:i], w.ents[i+1:]...)
	} else {
		k := hashFieldKey(w.tx.sel, w.key, field)
		if !w.tx.rawDelete(k) {
			return false
		}
	}
	w.h.count--
	return true
}

// commit writes the metadata, deleting the key when no field is left.
func (w *hashWriter) commit() {
	if w.h.count <= 0 {
		if w.existed {
			w.tx.remove(w.key, w.old)
		}
		return
	}
	b := appendCollMeta(make([]byte, 0, collMetaSize(w.h, w.size)), TypeHash, w.old.ExpireAt, w.h)
	for _, e := range w.ents {
		b = appendPacked(appendPacked(b, e.f), e.v)
	}
	w.tx.commitColl(w.key, b)
}

// HSet stores field/value pairs (pairs holds f1, v1, f2, v2, ...) and returns
// how many fields were new. It copies what it keeps, so pairs may share the
// bytes of a buffer the caller reuses.
func (tx *Tx) HSet(key string, pairs ...string) (int, error) {
	w := tx.borrowHash()
	defer tx.releaseHash(w)
	err := tx.initHash(w, key)
	if err != nil {
		return 0, err
	}
	if !w.existed {
		// Room for every field at once, not a doubling per field.
		w.ents = slices.Grow(w.ents, len(pairs)/2)
	}
	added := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		if w.set(pairs[i], pairs[i+1]) {
			added++
		}
	}
	w.commit()
	return added, nil
}

// HSetNX stores field only when it is absent and reports whether it did.
func (tx *Tx) HSetNX(key, field, val string) (bool, error) {
	w := tx.borrowHash()
	defer tx.releaseHash(w)
	err := tx.initHash(w, key)
	if err != nil {
		return false, err
	}
	if _, ok := w.get(field); ok {
		return false, nil
	}
	w.set(field, val)
	w.commit()
	return true, nil
}

// HGet returns a field's value. An inline hash is scanned in place.
func (tx *Tx) HGet(key, field string) (string, bool, error) {
	m, ok, err := tx.lookupType(key, TypeHash)
	if !ok || err != nil {
		return "", false, err
	}
	h, i := decodeCollHeader(m.Payload)
	if !h.inline() {
		v, ok := tx.rawGet(hashFieldKey(tx.sel, key, field))
		return v, ok, nil
	}
	var val string
	found := false
	forEachPair(m.Payload, i, func(f, v string, _ int) bool {
		if f == field {
			val, found = v, true
			return false
		}
		return true
	})
	return val, found, nil
}

// HExists reports whether field is set.
func (tx *Tx) HExists(key, field string) (bool, error) {
	_, ok, err := tx.HGet(key, field)
	return ok, err
}

// HLen returns the number of fields (0 for a missing key).
func (tx *Tx) HLen(key string) (int64, error) {
	m, ok, err := tx.lookupType(key, TypeHash)
	if !ok || err != nil {
		return 0, err
	}
	h, _ := decodeCollHeader(m.Payload)
	return h.count, nil
}

// HDel removes fields and returns how many existed. It keeps none of them.
func (tx *Tx) HDel(key string, fields ...string) (int64, error) {
	w := tx.borrowHash()
	defer tx.releaseHash(w)
	err := tx.initHash(w, key)
	if err != nil || !w.existed {
		return 0, err
	}
	var n int64
	for _, f := range fields {
		if w.del(f) {
			n++
		}
	}
	if n > 0 {
		w.commit()
	}
	return n, nil
}

// HIterate calls fn for each field >= from in the hash's own order: Redis's
// insertion order while the hash is a listpack (HCompact), byte order of the
// field once it is a hashtable; fn returns false to stop. It reports whether
// the key exists.
func (tx *Tx) HIterate(key, from string, fn func(field, val string) bool) (bool, error) {
	m, ok, err := tx.lookupType(key, TypeHash)
	if !ok || err != nil {
		return false, err
	}
	h, i := decodeCollHeader(m.Payload)
	if h.inline() {
		forEachPair(m.Payload, i, func(f, v string, _ int) bool {
			return f < from || fn(f, v)
		})
		return true, nil
	}
	prefix := hashFieldsPrefix(tx.sel, key)
	tx.ascendSuffixFrom(prefix, from, func(k, v string) bool { return fn(k[len(prefix):], v) })
	return true, nil
}

// HGetAll returns field/value pairs in the hash's order (see HIterate).
func (tx *Tx) HGetAll(key string) ([]string, error) {
	var out []string
	_, err := tx.HIterate(key, "", func(f, v string) bool {
		out = append(out, f, v)
		return true
	})
	return out, err
}

// HCompact reports whether the hash would be a listpack on Redis.
func (tx *Tx) HCompact(key string) (bool, error) {
	m, ok, err := tx.lookupType(key, TypeHash)
	if !ok || err != nil {
		return true, err
	}
	h, _ := decodeCollHeader(m.Payload)
	return !h.big(), nil
}

// HUpdate reads field (exists false when unset) and stores what fn returns,
// creating the key as needed. An error from fn writes nothing.
func (tx *Tx) HUpdate(key, field string, fn func(old string, exists bool) (string, error)) (string, error) {
	w := tx.borrowHash()
	defer tx.releaseHash(w)
	err := tx.initHash(w, key)
	if err != nil {
		return "", err
	}
	old, had := w.get(field)
	nv, err := fn(old, had)
	if err != nil {
		return "", err
	}
	w.set(field, nv)
	w.commit()
	return nv, nil
}

// HIncrBy adds incr to an integer field (0 when unset) and returns the sum.
func (tx *Tx) HIncrBy(key, field string, incr int64) (int64, error) {
	var sum int64
	_, err := tx.HUpdate(key, field, func(old string, exists bool) (string, error) {
		var cur int64
		if exists {
			v, ok := parseStrictInt(old)
			if !ok {
				return "", ErrHashNotInt
			}
			cur = v
		}
		if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
			return "", ErrOverflow
		}
		sum = cur + incr
		return strconv.FormatInt(sum, 10), nil
	})
	return sum, err
}

// parseStrictInt parses as Redis's string2ll: no '+', spaces or leading
// zeros, so only canonical integers count.
func parseStrictInt(s string) (int64, bool) {
	if !looksInt(s) {
		return 0, false // before ParseInt, whose error allocates
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

// ascendSuffixFrom iterates items under prefix whose suffix is >= from.
func (tx *Tx) ascendSuffixFrom(prefix, from string, fn func(k, v string) bool) {
	if from == "" {
		tx.ascendPrefix(prefix, fn)
		return
	}
	end := prefixEnd(prefix)
	if end == "" {
		tx.btx.AscendGreaterOrEqual("", prefix+from, fn)
		return
	}
	tx.btx.AscendRange("", prefix+from, end, fn)
}

// looksInt reports whether s is an optional '-' and at least one digit.
func looksInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
