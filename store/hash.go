package store

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// A hash keeps its field count and encoding in the metadata payload, so HLEN
// is O(1), and each field as one item:
//
//	dataPrefix(db,key) 'f' <field> -> value
//
// The encoding byte mirrors Redis's listpack/hashtable choice (128 fields, 64
// bytes per field or value; once converted a hash stays a hashtable), because
// it decides observable behaviour: HSCAN returns a listpack hash whole.
const (
	hashFieldTag     = 'f'
	hashMaxCompact   = 128
	hashMaxCompactSz = 64
)

// Errors of hash arithmetic, turned into Redis's texts by the commands.
var (
	ErrHashNotInt = errors.New("hash value is not an integer")
	ErrOverflow   = errors.New("increment or decrement would overflow")
)

type hashHeader struct {
	count int64
	big   bool // hashtable encoding
}

func decodeHashHeader(p string) hashHeader {
	n, w := binary.Uvarint([]byte(p))
	h := hashHeader{count: int64(n)}
	if w > 0 && w < len(p) {
		h.big = p[w] == 1
	}
	return h
}

func (h hashHeader) encode() string {
	var b [binary.MaxVarintLen64 + 1]byte
	n := binary.PutUvarint(b[:], uint64(h.count))
	if h.big {
		b[n] = 1
	}
	return string(b[:n+1])
}

func hashFieldKey(db int, key, field string) string {
	return dataPrefix(db, key) + string(rune(hashFieldTag)) + field
}

func hashFieldsPrefix(db int, key string) string {
	return dataPrefix(db, key) + string(rune(hashFieldTag))
}

// hashWriter batches changes to one hash and writes its header once.
type hashWriter struct {
	tx      *Tx
	key     string
	old     Meta
	existed bool
	h       hashHeader
}

func (tx *Tx) openHash(key string) (*hashWriter, error) {
	m, ok, err := tx.lookupType(key, TypeHash)
	if err != nil {
		return nil, err
	}
	w := &hashWriter{tx: tx, key: key, old: m, existed: ok}
	if ok {
		w.h = decodeHashHeader(m.Payload)
	}
	return w, nil
}

// set stores one field and reports whether it was new.
func (w *hashWriter) set(field, val string) bool {
	k := hashFieldKey(w.tx.sel, w.key, field)
	_, had := w.tx.rawGet(k)
	w.tx.rawSet(k, val)
	if len(field) > hashMaxCompactSz || len(val) > hashMaxCompactSz {
		w.h.big = true
	}
	if !had {
		w.h.count++
		if w.h.count > hashMaxCompact {
			w.h.big = true
		}
	}
	return !had
}

func (w *hashWriter) del(field string) bool {
	k := hashFieldKey(w.tx.sel, w.key, field)
	if _, had := w.tx.rawGet(k); !had {
		return false
	}
	w.tx.rawDelete(k)
	w.h.count--
	return true
}

// commit writes the header, deleting the key when no field is left.
func (w *hashWriter) commit() {
	if w.h.count <= 0 {
		if w.existed {
			w.tx.remove(w.key, w.old)
		}
		return
	}
	nm := Meta{Type: TypeHash, Payload: w.h.encode()}
	if w.existed {
		nm.ExpireAt = w.old.ExpireAt
	}
	w.tx.putMeta(w.key, w.old, w.existed, nm)
}

// HSet stores field/value pairs (pairs holds f1, v1, f2, v2, ...) and returns
// how many fields were new.
func (tx *Tx) HSet(key string, pairs ...string) (int, error) {
	w, err := tx.openHash(key)
	if err != nil {
		return 0, err
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
	w, err := tx.openHash(key)
	if err != nil {
		return false, err
	}
	if _, ok := tx.rawGet(hashFieldKey(tx.sel, key, field)); ok {
		return false, nil
	}
	w.set(field, val)
	w.commit()
	return true, nil
}

// HGet returns a field's value.
func (tx *Tx) HGet(key, field string) (string, bool, error) {
	_, ok, err := tx.lookupType(key, TypeHash)
	if !ok || err != nil {
		return "", false, err
	}
	v, ok := tx.rawGet(hashFieldKey(tx.sel, key, field))
	return v, ok, nil
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
	return decodeHashHeader(m.Payload).count, nil
}

// HDel removes fields and returns how many existed.
func (tx *Tx) HDel(key string, fields ...string) (int, error) {
	w, err := tx.openHash(key)
	if err != nil || !w.existed {
		return 0, err
	}
	n := 0
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

// HIterate calls fn for each field in byte order of the field, starting at
// the first field >= from; fn returns false to stop. It reports whether the
// key exists.
func (tx *Tx) HIterate(key, from string, fn func(field, val string) bool) (bool, error) {
	_, ok, err := tx.lookupType(key, TypeHash)
	if !ok || err != nil {
		return false, err
	}
	prefix := hashFieldsPrefix(tx.sel, key)
	tx.ascendSuffixFrom(prefix, from, func(k, v string) bool { return fn(k[len(prefix):], v) })
	return true, nil
}

// HGetAll returns field/value pairs in field order.
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
	return !decodeHashHeader(m.Payload).big, nil
}

// HUpdate reads field (exists false when unset) and stores what fn returns,
// creating the key as needed. An error from fn writes nothing.
func (tx *Tx) HUpdate(key, field string, fn func(old string, exists bool) (string, error)) (string, error) {
	w, err := tx.openHash(key)
	if err != nil {
		return "", err
	}
	old, had := tx.rawGet(hashFieldKey(tx.sel, key, field))
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
