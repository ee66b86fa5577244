package store

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/tidwall/btree"
	"github.com/tidwall/buntdb"
)

// A sorted set kept as items stores one item per member (its score) in
// buntdb, which is what is durable; the order by score lives in memory,
// one index per set, built from the member items at start-up (loadZSets)
// or, after it was dropped, when the set is next opened. Keeping a second,
// score-ordered item per member in buntdb made every score change three
// btree writes of the whole keyspace (delete the old score item, rewrite
// the member, insert the new score item) plus buntdb's rollback and commit
// bookkeeping for each; qless moves a score on every pop, heartbeat and
// completion.
//
// An index is only read or changed inside a store transaction of its
// database, so buntdb's lock orders writers against everyone; the
// registry's mutex guards only the registry, which read transactions may
// fill concurrently. The index of a key is dropped whenever the key's
// items are removed or moved wholesale (tx.remove, Rename, FlushDB, SwapDB) and all of them when a
// commit fails (buntdb then rolls the items back), so it is rebuilt from
// the items on next use. The index is the set's size as well: the
// metadata item is not rewritten when members come and go.
type zindex struct {
	scores map[string]float64
	order  *btree.BTreeG[Entry]
}

// dbKey names a key of one database (the registry's and tests' map key).
type dbKey struct {
	db  int
	key string
}

type zindexes struct {
	mu sync.Mutex
	m  map[dbKey]*zindex
}

func entryLess(a, b Entry) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Member < b.Member
}

func newZIndex(n int) *zindex {
	return &zindex{
		scores: make(map[string]float64, n),
		order:  btree.NewBTreeGOptions(entryLess, btree.Options{NoLocks: true}),
	}
}

func (ix *zindex) put(member string, score float64) {
	ix.scores[member] = score
	ix.order.Set(Entry{Member: member, Score: score})
}

func (ix *zindex) remove(member string, score float64) {
	delete(ix.scores, member)
	ix.order.Delete(Entry{Member: member, Score: score})
}

// index returns the set's in-memory order, building it from the member
// items when there is none yet.
func (z *ZSet) index() *zindex {
	if z.idx != nil {
		return z.idx
	}
	reg := &z.tx.db.zidx
	k := dbKey{z.db, z.key}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if ix := reg.m[k]; ix != nil {
		z.idx = ix
		return ix
	}
	hint := 0
	if len(z.meta.Payload) == zItemsPayloadLen {
		hint = int(min(binary.BigEndian.Uint64([]byte(z.meta.Payload)), 1<<20))
	}
	ix := newZIndex(hint)
	mp := z.dataPrefix() + string(zTagMember)
	z.tx.ascendPrefix(mp, func(k, v string) bool {
		if len(v) == 8 {
			ix.put(k[len(mp):], math.Float64frombits(binary.BigEndian.Uint64([]byte(v))))
		}
		return true
	})
	reg.put(k, ix)
	z.idx = ix
	return ix
}

// setIndex registers ix as key's index (a set that just moved to items).
func (z *ZSet) setIndex(ix *zindex) {
	reg := &z.tx.db.zidx
	reg.mu.Lock()
	reg.put(dbKey{z.db, z.key}, ix)
	reg.mu.Unlock()
	z.idx = ix
}

// put registers ix under k; mu held.
func (reg *zindexes) put(k dbKey, ix *zindex) {
	if reg.m == nil {
		reg.m = map[dbKey]*zindex{}
	}
	reg.m[k] = ix
}

// dropZIndex forgets key's index (in the selected database).
func (tx *Tx) dropZIndex(key string) {
	reg := &tx.db.zidx
	reg.mu.Lock()
	delete(reg.m, dbKey{tx.sel, key})
	reg.mu.Unlock()
}

// dropZIndexes forgets every index: after a failed commit, or an operation
// that moves whole databases.
func (db *DB) dropZIndexes() {
	db.zidx.mu.Lock()
	db.zidx.m = nil
	db.zidx.mu.Unlock()
}

// ascendFrom walks entries from the first one at or above min, in order.
func (ix *zindex) ascendFrom(min ScoreBound, fn func(Entry) bool) {
	pivot := Entry{Score: min.Value}
	if min.Excl {
		pivot.Score = math.Nextafter(min.Value, math.Inf(1))
		if pivot.Score == min.Value { // +inf excluded: nothing is above
			return
		}
	}
	ix.order.Ascend(pivot, fn)
}

// descendFrom walks entries from the last one at or below max, downwards.
func (ix *zindex) descendFrom(max ScoreBound, fn func(Entry) bool) {
	if !max.Excl && math.IsInf(max.Value, 1) {
		ix.order.Reverse(fn)
		return
	}
	// Entries below (above, when inclusive) max's score start below the
	// pivot of member "" at that score; at most that one entry is beyond.
	pivot := Entry{Score: max.Value}
	if !max.Excl {
		pivot.Score = math.Nextafter(max.Value, math.Inf(1))
	}
	ix.order.Descend(pivot, func(e Entry) bool {
		if e.Score > max.Value || max.Excl && e.Score == max.Value {
			return true
		}
		return fn(e)
	})
}

// loadZSets runs once at start-up, before clients are served: it deletes
// the score-ordered items that sorted sets kept as items had before the
// order moved to memory (data files of earlier versions; a marker item
// records that the file is past that), then builds every such set's order,
// so that the first command to use a large set after a restart does not
// stall everyone while its order is built (about a second per million
// members), as Redis loads its whole data set before serving.
func (db *DB) loadZSets() error {
	_, err := db.commit(func(btx *buntdb.Tx) error {
		tx := newTx(db, btx, true)
		var sets []dbKey
		tx.btx.AscendRange("", string([]byte{tagMeta}), string([]byte{tagMeta + 1}), func(k, v string) bool {
			m, ok := decodeMeta(v)
			if ok && m.Type == TypeZSet && len(m.Payload) == zItemsPayloadLen {
				sets = append(sets, dbKey{int(k[1]), k[2:]})
			}
			return true
		})
		if _, err := btx.Get(formatKey); err != nil {
			for _, s := range sets {
				tx.deleteRange(dataPrefix(s.db, s.key) + string(zTagScore))
			}
			markZSetFormat(tx)
		}
		for _, s := range sets {
			tx.Select(s.db)
			if z, err := tx.OpenZSet(s.key); err == nil {
				z.index()
				z.Release()
			}
		}
		return nil
	})
	return err
}

// markZSetFormat records that no sorted set has score-ordered items in the
// data file (formatKey).
func markZSetFormat(tx *Tx) { tx.rawSet(formatKey, formatZSetInMemoryOrder) }
