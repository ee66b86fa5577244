package store

import (
	"hash/maphash"
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
// concurrently, hence the mutex.
//
// It is a direct-mapped table: a key has one slot, chosen by its hash, and
// a newcomer takes the slot over. Keys used once (a job's own keys) pass
// through without growing anything, and the hot keys come straight back.
type sharedMetas struct {
	mu    sync.Mutex
	seed  maphash.Seed
	slots []sharedSlot // nil until first used, and after a drop
}

type sharedSlot struct {
	key  string
	db   int
	used bool
	ok   bool // false: the key is absent
	meta Meta
}

const sharedSlots = 4096 // a power of two

func (s *sharedMetas) slot(db int, key string) *sharedSlot {
	if s.slots == nil {
		if s.seed == (maphash.Seed{}) {
			s.seed = maphash.MakeSeed()
		}
		s.slots = make([]sharedSlot, sharedSlots)
	}
	h := maphash.String(s.seed, key) + uint64(db)
	return &s.slots[h&(sharedSlots-1)]
}

func (s *sharedMetas) get(db int, key string) (Meta, bool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.slot(db, key)
	if !e.used || e.db != db || e.key != key {
		return Meta{}, false, false
	}
	return e.meta, e.ok, true
}

// set records key's metadata. key must not change afterwards (a copy or a
// string buntdb keeps).
func (s *sharedMetas) set(db int, key string, m Meta, ok bool) {
	s.mu.Lock()
	*s.slot(db, key) = sharedSlot{key: key, db: db, used: true, ok: ok, meta: m}
	s.mu.Unlock()
}

func (s *sharedMetas) drop() {
	s.mu.Lock()
	s.slots = nil
	s.mu.Unlock()
}

// shareRead records what a lookup read from buntdb; the caller's key may
// live in a reused buffer, so it is copied.
func (tx *Tx) shareRead(key string, m Meta, ok bool) {
	tx.db.shared.set(tx.sel, strings.Clone(key), m, ok)
}

// metaWritten records in both caches that key's metadata item, under
// itemKey (the key buntdb keeps, whose tail is key), was just written, or
// deleted (ok false).
func (tx *Tx) metaWritten(itemKey, key string, m Meta, ok bool) {
	tx.cacheMeta(key, m, ok)
	tx.db.shared.set(tx.sel, itemKey[2:], m, ok)
}
