package store

import (
	"encoding/binary"
)

// A set keeps its cardinality and encoding in the metadata payload and each
// member as one item:
//
//	dataPrefix(db,key) 'm' <member> -> ""
//
// The encoding byte mirrors Redis 7.0's intset/hashtable choice (integers
// only, at most 512 members; once converted a set stays a hashtable): an
// intset replies in numeric order and SSCAN returns it whole.
const (
	setMemberTag    = 'm'
	setMaxIntset    = 512
	setEncIntset    = 0
	setEncHashtable = 1
)

type setHeader struct {
	count int64
	big   bool
}

func decodeSetHeader(p string) setHeader {
	n, w := binary.Uvarint([]byte(p))
	h := setHeader{count: int64(n)}
	if w > 0 && w < len(p) {
		h.big = p[w] == setEncHashtable
	}
	return h
}

func (h setHeader) encode() string {
	var b [binary.MaxVarintLen64 + 1]byte
	n := binary.PutUvarint(b[:], uint64(h.count))
	b[n] = setEncIntset
	if h.big {
		b[n] = setEncHashtable
	}
	return string(b[:n+1])
}

func setMembersPrefix(db int, key string) string {
	return dataPrefix(db, key) + string(rune(setMemberTag))
}

// setWriter batches changes to one set and writes its header once.
type setWriter struct {
	tx      *Tx
	key     string
	prefix  string
	old     Meta
	existed bool
	h       setHeader
}

func (tx *Tx) openSet(key string) (*setWriter, error) {
	m, ok, err := tx.lookupType(key, TypeSet)
	if err != nil {
		return nil, err
	}
	w := &setWriter{tx: tx, key: key, prefix: setMembersPrefix(tx.sel, key), old: m, existed: ok}
	if ok {
		w.h = decodeSetHeader(m.Payload)
	}
	return w, nil
}

func (w *setWriter) add(member string) bool {
	k := w.prefix + member
	if _, had := w.tx.rawGet(k); had {
		return false
	}
	w.tx.rawSet(k, "")
	w.h.count++
	if _, isInt := parseStrictInt(member); !isInt || w.h.count > setMaxIntset {
		w.h.big = true
	}
	return true
}

func (w *setWriter) rem(member string) bool {
	k := w.prefix + member
	if _, had := w.tx.rawGet(k); !had {
		return false
	}
	w.tx.rawDelete(k)
	w.h.count--
	return true
}

// commit writes the header, deleting the key when no member is left.
func (w *setWriter) commit() {
	if w.h.count <= 0 {
		if w.existed {
			w.tx.remove(w.key, w.old)
		}
		return
	}
	nm := Meta{Type: TypeSet, Payload: w.h.encode()}
	if w.existed {
		nm.ExpireAt = w.old.ExpireAt
	}
	w.tx.putMeta(w.key, w.old, w.existed, nm)
}

// SAdd adds members and returns how many were new.
func (tx *Tx) SAdd(key string, members ...string) (int, error) {
	w, err := tx.openSet(key)
	if err != nil {
		return 0, err
	}
	n := 0
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
func (tx *Tx) SRem(key string, members ...string) (int, error) {
	w, err := tx.openSet(key)
	if err != nil || !w.existed {
		return 0, err
	}
	n := 0
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
	return decodeSetHeader(m.Payload).count, nil
}

// SIsMember reports whether member is in the set.
func (tx *Tx) SIsMember(key, member string) (bool, error) {
	_, ok, err := tx.lookupType(key, TypeSet)
	if !ok || err != nil {
		return false, err
	}
	_, had := tx.rawGet(setMembersPrefix(tx.sel, key) + member)
	return had, nil
}

// SIterate calls fn for each member >= from in byte order; fn returns false
// to stop. It reports whether the key exists.
func (tx *Tx) SIterate(key, from string, fn func(member string) bool) (bool, error) {
	_, ok, err := tx.lookupType(key, TypeSet)
	if !ok || err != nil {
		return false, err
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
	return !decodeSetHeader(m.Payload).big, nil
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
		_, had := tx.rawGet(sw.prefix + member)
		return had, nil
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
