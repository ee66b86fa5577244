package store

import "unsafe"

// PrefetchMetas reads the metadata of keys that sit next to each other in
// the keyspace (a job's hash and the keys named after it: -history,
// -dependents, -dependencies) in one walk, and keeps what it found, absent
// keys included, for the lookups that follow. Each lookup alone is a search
// of the whole keyspace, and qless reads these keys on every put, pop and
// completion though most of them do not exist. keys must be in ascending
// order. A walk that meets many other keys between them stops early; the
// keys it did not reach are then looked up one by one as usual.
func (tx *Tx) PrefetchMetas(keys ...string) {
	for len(keys) > 0 && tx.cachedMeta(keys[0]) != nil {
		keys = keys[1:]
	}
	if len(keys) < 2 {
		return
	}
	// Both bounds in the lookup buffer: buntdb keeps neither.
	first, last := keys[0], keys[len(keys)-1]
	b := append(tx.keyBuf[:0], tagMeta, byte(tx.sel))
	b = append(b, first...)
	b = append(b, tagMeta, byte(tx.sel))
	b = append(b, last...)
	b = append(b, 0)
	tx.keyBuf = b
	lo := unsafe.String(unsafe.SliceData(b), 2+len(first))
	hi := unsafe.String(&b[2+len(first)], len(b)-2-len(first))
	i, steps, whole := 0, 0, true
	tx.btx.AscendRange("", lo, hi, func(k, v string) bool {
		name := k[2:]
		for ; i < len(keys) && keys[i] < name; i++ {
			tx.prefetched(keys[i], Meta{}, false)
		}
		if i < len(keys) && keys[i] == name {
			m, ok := decodeMeta(v)
			tx.prefetched(keys[i], m, ok)
			i++
		}
		if steps++; i < len(keys) && steps >= prefetchSteps {
			whole = false
			return false
		}
		return i < len(keys)
	})
	if whole {
		for ; i < len(keys); i++ {
			tx.prefetched(keys[i], Meta{}, false)
		}
	}
}

// prefetchSteps bounds the items one prefetch walks past.
const prefetchSteps = 8

// prefetched keeps what a walk found in the transaction's cache only: these
// keys are one job's, read again in this transaction if at all, and the
// shared cache's copy and lock cost more than the walk that finds them
// the next time.
func (tx *Tx) prefetched(key string, m Meta, ok bool) {
	if tx.cachedMeta(key) == nil {
		tx.addMeta(key, m, ok)
	}
}
