package store

import "math/rand/v2"

// RandomKey returns a uniformly chosen live key of the selected database.
// It walks the keyspace, which is fine for how rarely RANDOMKEY is used.
func (tx *Tx) RandomKey() (string, bool) {
	n := tx.DBSize()
	if n == 0 {
		return "", false
	}
	pick := rand.IntN(n)
	var key string
	i := 0
	tx.ScanKeys("", func(k string, _ Type) bool {
		if i == pick {
			key = k
			return false
		}
		i++
		return true
	})
	return key, true
}

// Copy copies src of the selected database to dst in database dstDB, with
// its expiry. It returns false when src is absent, or when dst exists and
// replace is false.
func (tx *Tx) Copy(src string, dstDB int, dst string, replace bool) bool {
	m, ok := tx.lookup(src)
	if !ok {
		return false
	}
	type kv struct{ k, v string }
	var items []kv
	var zix *zindex
	if m.Type == TypeZSet {
		zix = tx.db.zindexOf(tx.sel, src)
	}
	sp := dataPrefix(tx.sel, src)
	if m.Type != TypeString {
		tx.ascendPrefix(sp, func(k, v string) bool {
			items = append(items, kv{k[len(sp):], v})
			return true
		})
	}
	cur := tx.sel
	defer func() { tx.sel = cur }()
	tx.sel = dstDB
	old, exists := tx.lookup(dst)
	if exists {
		if !replace {
			return false
		}
		tx.remove(dst, old)
	}
	dp := dataPrefix(dstDB, dst)
	for _, it := range items {
		tx.rawSet(dp+it.k, it.v)
	}
	if zix != nil {
		tx.copyZIndex(zix, dbKey{dstDB, dst})
	}
	tx.putMeta(dst, Meta{}, false, m)
	return true
}
