package store

// A qless script reads the same few keys (the job hash, the queue's sorted
// sets) several times in one transaction, and each read of a metadata item
// is a btree search of the whole keyspace. The transaction therefore keeps
// the metadata it has read or written, absent keys included, and answers
// repeated lookups from it. Every write of a metadata item goes through
// putMeta, commitColl or remove, which keep their entry current; the
// operations that move or delete items wholesale (Rename, FlushDB, SwapDB)
// drop the cache. A key not in the cache is simply read from buntdb, so the
// cache may stop growing without being wrong.
const metaCacheMax = 64

type metaEnt struct {
	key      string
	payload  string
	expireAt int64
	typ      Type
	db       uint8
	ok       bool // false: the key is absent
}

func (e *metaEnt) meta() Meta { return Meta{Type: e.typ, ExpireAt: e.expireAt, Payload: e.payload} }

func (e *metaEnt) set(m Meta, ok bool) {
	e.typ, e.expireAt, e.payload, e.ok = m.Type, m.ExpireAt, m.Payload, ok
}

func (tx *Tx) cachedMeta(key string) *metaEnt {
	for i := range tx.metas {
		e := &tx.metas[i]
		if int(e.db) == tx.sel && len(e.key) == len(key) && e.key == key {
			return e
		}
	}
	return nil
}

// cacheMeta records key's metadata (ok false: absent).
func (tx *Tx) cacheMeta(key string, m Meta, ok bool) {
	if e := tx.cachedMeta(key); e != nil {
		e.set(m, ok)
		return
	}
	tx.addMeta(key, m, ok)
}

// addMeta records the metadata of a key not in the cache yet.
func (tx *Tx) addMeta(key string, m Meta, ok bool) {
	if len(tx.metas) >= metaCacheMax {
		return
	}
	if tx.metas == nil {
		tx.metas = tx.metaBuf[:0]
	}
	tx.metas = append(tx.metas, metaEnt{key: key, db: uint8(tx.sel)})
	tx.metas[len(tx.metas)-1].set(m, ok)
}

// dropMetaCache forgets every cached entry.
func (tx *Tx) dropMetaCache() { tx.metas = tx.metas[:0] }

// KeyString returns key b as a string: the one the transaction's metadata
// cache already holds when it has read or written the key, else a copy.
// Commands name their key with it, which saves a script's second and later
// commands on a key the copy.
func (tx *Tx) KeyString(b []byte) string {
	for i := range tx.metas {
		e := &tx.metas[i]
		if int(e.db) == tx.sel && len(e.key) == len(b) && e.key == string(b) {
			return e.key
		}
	}
	return string(b)
}
