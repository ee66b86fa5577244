package store

// Exists reports whether key exists.
func (tx *Tx) Exists(key string) bool {
	_, ok := tx.lookup(key)
	return ok
}

// TypeOf returns key's type, TypeNone when absent.
func (tx *Tx) TypeOf(key string) Type {
	m, ok := tx.lookup(key)
	if !ok {
		return TypeNone
	}
	return m.Type
}

// Delete removes key of any type and reports whether it existed.
func (tx *Tx) Delete(key string) bool {
	m, ok := tx.lookup(key)
	if !ok {
		return false
	}
	tx.remove(key, m)
	return true
}

// ExpireAt returns key's deadline in unix ms (0 when it has none) and whether
// the key exists.
func (tx *Tx) ExpireAt(key string) (int64, bool) {
	m, ok := tx.lookup(key)
	return m.ExpireAt, ok
}

// SetExpireAt sets key's deadline (unix ms; 0 removes it). A deadline that is
// already past deletes the key, as Redis does. It reports whether the key
// exists.
func (tx *Tx) SetExpireAt(key string, at int64) bool {
	m, ok := tx.lookup(key)
	if !ok {
		return false
	}
	if at != 0 && at <= tx.now {
		tx.remove(key, m)
		return true
	}
	nm := m
	nm.ExpireAt = at
	tx.putMeta(key, m, true, nm)
	return true
}

// Rename moves src to dst, replacing dst. It returns false when src is absent.
func (tx *Tx) Rename(src, dst string) bool {
	m, ok := tx.lookup(src)
	if !ok {
		return false
	}
	if src == dst {
		return true
	}
	tx.Delete(dst)
	if m.Type == TypeZSet {
		tx.moveZIndex(dbKey{tx.sel, src}, dbKey{tx.sel, dst})
	}
	if m.Type != TypeString {
		sp, dp := dataPrefix(tx.sel, src), dataPrefix(tx.sel, dst)
		type kv struct{ k, v string }
		var items []kv
		tx.ascendPrefix(sp, func(k, v string) bool {
			items = append(items, kv{k, v})
			return true
		})
		for _, it := range items {
			tx.rawDelete(it.k)
			tx.rawSet(dp+it.k[len(sp):], it.v)
		}
	}
	mk := metaKey(tx.sel, src)
	tx.rawDelete(mk)
	tx.metaWritten(mk, src, Meta{}, false)
	if m.ExpireAt != 0 {
		tx.rawDelete(expiryKey(tx.sel, m.ExpireAt, src))
	}
	tx.touch(src)
	tx.putMeta(dst, Meta{}, false, m)
	return true
}

// ScanKeys calls fn for each live key of the selected database in byte
// order, starting with the first key >= from. fn returns false to stop.
func (tx *Tx) ScanKeys(from string, fn func(key string, t Type) bool) {
	prefix := metaPrefix(tx.sel)
	tx.btx.AscendRange("", prefix+from, prefixEnd(prefix), func(k, v string) bool {
		m, ok := decodeMeta(v)
		if !ok || (m.ExpireAt != 0 && m.ExpireAt <= tx.now) {
			return true
		}
		return fn(k[len(prefix):], m.Type)
	})
}

// DBSize counts the live keys of the selected database.
func (tx *Tx) DBSize() int {
	n := 0
	tx.ScanKeys("", func(string, Type) bool { n++; return true })
	return n
}

// FlushDB deletes every key of the selected database; when no other
// database has keys, that is FLUSHALL's cheaper work.
func (tx *Tx) FlushDB() {
	tx.mutating()
	if !tx.othersHaveKeys() {
		tx.FlushAll()
		return
	}
	tx.dropMetaCache()
	tx.db.shared.drop()
	tx.dropZIndexesOf(tx.sel)
	sel := []byte{byte(tx.sel)}
	for _, tag := range []byte{tagMeta, tagData, tagExpiry} {
		prefix := string(append([]byte{tag}, sel...))
		if tag == tagMeta {
			tx.ascendPrefix(prefix, func(k, _ string) bool {
				tx.touched = append(tx.touched, KeyRef{DB: tx.sel, Key: k[len(prefix):]})
				return true
			})
		}
		tx.deleteRange(prefix)
	}
}

// othersHaveKeys reports whether a database other than the selected one
// holds a key (every item of a key sits beside its metadata item's
// database byte).
func (tx *Tx) othersHaveKeys() bool {
	found := false
	seen := func(string, string) bool { found = true; return false }
	tx.btx.AscendRange("", string([]byte{tagMeta}), metaPrefix(tx.sel), seen)
	if !found {
		tx.btx.AscendRange("", prefixEnd(metaPrefix(tx.sel)), string([]byte{tagMeta + 1}), seen)
	}
	return found
}

// FlushAll deletes every key of every database. buntdb swaps in empty
// trees and logs one flushdb record: deleting item by item logged every
// item and held the store for about 3 s per million keys.
func (tx *Tx) FlushAll() {
	tx.mutating()
	tx.dropMetaCache()
	tx.db.shared.drop()
	tx.db.dropZIndexes()
	tx.btx.AscendRange("", string([]byte{tagMeta}), string([]byte{tagMeta + 1}), func(k, _ string) bool {
		tx.touched = append(tx.touched, KeyRef{DB: int(k[1]), Key: k[2:]})
		return true
	})
	tx.rawDeleteAll()
	// The layout's version is not data: an empty store has no
	// score-ordered sorted-set items either.
	markZSetFormat(tx)
}

// KeyCount returns, per database index with keys, how many keys it has and
// how many of them have an expiry (for INFO keyspace).
func (tx *Tx) KeyCount() map[int][2]int {
	out := map[int][2]int{}
	tx.btx.AscendRange("", string([]byte{tagMeta}), string([]byte{tagMeta + 1}), func(k, v string) bool {
		m, ok := decodeMeta(v)
		if !ok || (m.ExpireAt != 0 && m.ExpireAt <= tx.now) {
			return true
		}
		c := out[int(k[1])]
		c[0]++
		if m.ExpireAt != 0 {
			c[1]++
		}
		out[int(k[1])] = c
		return true
	})
	return out
}

// SwapDB exchanges the contents of two database indexes.
func (tx *Tx) SwapDB(a, b int) {
	if a == b {
		return
	}
	tx.mutating()
	tx.dropMetaCache()
	tx.db.shared.drop()
	tx.swapZIndexes(a, b)
	type kv struct{ k, v string }
	var items []kv
	for _, tag := range []byte{tagMeta, tagData, tagExpiry} {
		for _, d := range []int{a, b} {
			tx.ascendPrefix(string([]byte{tag, byte(d)}), func(k, v string) bool {
				items = append(items, kv{k, v})
				if tag == tagMeta {
					tx.touched = append(tx.touched, KeyRef{DB: d, Key: k[2:]})
				}
				return true
			})
		}
	}
	for _, it := range items {
		tx.rawDelete(it.k)
	}
	for _, it := range items {
		nk := []byte(it.k)
		if int(nk[1]) == a {
			nk[1] = byte(b)
		} else {
			nk[1] = byte(a)
		}
		tx.rawSet(string(nk), it.v)
	}
	for _, r := range tx.touched {
		if r.DB == a || r.DB == b {
			other := a + b - r.DB
			tx.touched = append(tx.touched, KeyRef{DB: other, Key: r.Key})
		}
	}
}
