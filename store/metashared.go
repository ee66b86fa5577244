package store

import (
	"strings"
	"sync"
)

// sharedMetas keeps the metadata of recently used keys across
// transactions: a qless call reads a dozen keys that every call reads
// (ql:config, the queue's sorted sets, the worker's jobs, statistics),
// each otherwise a btree search of the whole keyspace. It is written
// through by every write of a metadata item (putMeta, commitColl, remove,
// Rename) in the transaction that makes it, and dropped wholesale by
// FlushDB, SwapDB and a failed commit. Read transactions may fill it
// concurrently, hence the mutex. When full it is emptied rather than
// tracking recency: the hot keys come straight back.
type sharedMetas struct {
	mu sync.Mutex
	m  map[zindexKey]sharedMeta
}

type sharedMeta struct {
	meta Meta
	ok   bool // false: the key is absent
}

const sharedMetaMax = 4096

func (s *sharedMetas) get(db int, key string) (Meta, bool, bool) {
	s.mu.Lock()
	e, found := s.m[zindexKey{db, key}]
	s.mu.Unlock()
	return e.meta, e.ok, found
}

// set records key's metadata. key must not change afterwards (a copy or a
// string buntdb keeps).
func (s *sharedMetas) set(db int, key string, m Meta, ok bool) {
	s.mu.Lock()
	if s.m == nil || len(s.m) >= sharedMetaMax {
		s.m = make(map[zindexKey]sharedMeta, 256)
	}
	s.m[zindexKey{db, key}] = sharedMeta{m, ok}
	s.mu.Unlock()
}

func (s *sharedMetas) drop() {
	s.mu.Lock()
	s.m = nil
	s.mu.Unlock()
}

// shareRead records what a lookup read from buntdb; the caller's key may
// live in a reused buffer, so it is copied.
func (tx *Tx) shareRead(key string, m Meta, ok bool) {
	tx.db.shared.set(tx.sel, strings.Clone(key), m, ok)
}

// shareWrite records a metadata item just written (or deleted) under
// itemKey, the key buntdb keeps, whose tail is the Redis key.
func (tx *Tx) shareWrite(itemKey string, m Meta, ok bool) {
	tx.db.shared.set(tx.sel, itemKey[2:], m, ok)
}
