package store

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/btree"
	"github.com/tidwall/buntdb"
)

// A sorted set kept as items (past the inline limit) lives in memory
// only: one index per set, a map from member to score and a btree in
// Redis's (score, member) order. The data file records each member as the
// item it once was in buntdb (a set record of <prefix> 'm' <member> -> the
// 8-byte score, a del record when it goes), so files read back the same
// either way; at start-up those items are loaded, moved into their set's
// index and dropped from buntdb (loadZSets). A score change used to write
// buntdb's btree of the whole keyspace and its rollback and commit
// bookkeeping, and each member cost an item of about 150 bytes; qless
// moves a score on every pop, heartbeat and completion.
//
// The index is the only copy of its members, so it lives as long as its
// key: whatever removes, moves or copies a key does the same to the index
// and journals its members (remove, Rename, Copy, SwapDB, FlushDB,
// FlushAll). Nothing needs undoing: a transaction always commits what it
// wrote, a panic included (DB.commit), and buntdb's in-memory commit
// cannot fail. Indexes change only in write transactions, which hold the
// store alone; read transactions share them, and build an index's member
// order for ZSCAN under its mutex. The registry's mutex guards only the
// registry. The index is the set's size as well: the metadata item is not
// rewritten when members come and go.
type zindex struct {
	scores map[string]float64
	order  *btree.BTreeG[Entry]

	mu       sync.Mutex
	byMember []string // members in byte order, made on demand, dropped when membership changes

	// While registered: the registry, the key's member prefix and the
	// members' share of the store's digest (digest.go).
	reg *zindexes
	mp  string
	sum storeDigest
}

// dbKey names a key of one database (the registry's and tests' map key).
type dbKey struct {
	db  int
	key string
}

type zindexes struct {
	mu  sync.Mutex
	m   map[dbKey]*zindex
	sum storeDigest // the registered members' share of the digest; txMu
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

// insert adds a member that is not in the set; member must not share a
// caller's buffer.
func (ix *zindex) insert(member string, score float64) {
	ix.scores[member] = score
	ix.order.Set(Entry{Member: member, Score: score})
	ix.byMember = nil
	ix.noteMember(member, 0, false, score, true)
}

// rescore moves a member from old to score and returns the index's own
// copy of the member's bytes, which the map and the order keep (a map
// assignment replaces a string key with the one given).
func (ix *zindex) rescore(member string, old, score float64) string {
	e, ok := ix.order.Delete(Entry{Member: member, Score: old})
	if !ok {
		e.Member = strings.Clone(member)
	}
	e.Score = score
	ix.order.Set(e)
	ix.scores[e.Member] = score
	ix.noteMember(e.Member, old, true, score, true)
	return e.Member
}

// remove deletes a member and returns the index's own copy of its bytes.
func (ix *zindex) remove(member string, score float64) string {
	delete(ix.scores, member)
	e, _ := ix.order.Delete(Entry{Member: member, Score: score})
	ix.byMember = nil
	ix.noteMember(member, score, true, 0, false)
	return e.Member
}

// members returns the members in byte order (ZSCAN's order).
func (ix *zindex) members() []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.byMember == nil {
		ms := make([]string, 0, len(ix.scores))
		for m := range ix.scores {
			ms = append(ms, m)
		}
		slices.Sort(ms)
		ix.byMember = ms
	}
	return ix.byMember
}

// clone copies the index; members' bytes are shared, being immutable.
func (ix *zindex) clone() *zindex {
	c := newZIndex(len(ix.scores))
	for m, sc := range ix.scores {
		c.scores[m] = sc
	}
	c.order = ix.order.Copy()
	return c
}

// index returns the set's index. Only loadZSets finds none and builds it
// from the member items the data file gave.
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
	mp := memberPrefixOf(z.db, z.key)
	z.tx.ascendPrefix(mp, func(k, v string) bool {
		if len(v) == 8 {
			// A copy, so the index does not keep the item's key alive.
			ix.insert(strings.Clone(k[len(mp):]), math.Float64frombits(binary.BigEndian.Uint64([]byte(v))))
		}
		return true
	})
	reg.put(k, ix)
	z.idx = ix
	return ix
}

// setIndex registers ix as key's index (a set that just moved to items).
func (z *ZSet) setIndex(ix *zindex) {
	z.tx.db.putZIndex(dbKey{z.db, z.key}, ix)
	z.idx = ix
}

// put registers ix under k; mu held.
func (reg *zindexes) put(k dbKey, ix *zindex) {
	if reg.m == nil {
		reg.m = map[dbKey]*zindex{}
	}
	if old := reg.m[k]; old != nil {
		reg.unlink(old)
	}
	reg.m[k] = ix
	reg.link(k, ix)
}

// del forgets k's index; mu held.
func (reg *zindexes) del(k dbKey) {
	if ix := reg.m[k]; ix != nil {
		reg.unlink(ix)
		delete(reg.m, k)
	}
}

// replace makes m the whole registry (nil: empty); mu held.
func (reg *zindexes) replace(m map[dbKey]*zindex) {
	for _, ix := range reg.m {
		reg.unlink(ix)
	}
	reg.m, reg.sum = m, storeDigest{}
	for k, ix := range m {
		reg.link(k, ix)
	}
}

// zindexOf returns the index of key in database db, nil for none.
func (db *DB) zindexOf(d int, key string) *zindex {
	db.zidx.mu.Lock()
	defer db.zidx.mu.Unlock()
	return db.zidx.m[dbKey{d, key}]
}

// takeZIndex removes and returns key's index, nil for none.
func (db *DB) takeZIndex(k dbKey) *zindex {
	db.zidx.mu.Lock()
	defer db.zidx.mu.Unlock()
	ix := db.zidx.m[k]
	if ix != nil {
		db.jr.noteIndex(k, ix)
	}
	db.zidx.del(k)
	return ix
}

func (db *DB) putZIndex(k dbKey, ix *zindex) {
	db.zidx.mu.Lock()
	db.jr.noteIndex(k, db.zidx.m[k])
	db.zidx.put(k, ix)
	db.zidx.mu.Unlock()
}

// dropMembers deletes the members of key k with its index, journalling
// each.
func (tx *Tx) dropMembers(k dbKey) {
	tx.mutating()
	ix := tx.db.takeZIndex(k)
	if ix != nil {
		tx.journalMembers(k, ix, true)
	}
}

// journalMembers records every member of ix as key k's, as set records,
// or as del records when del is set.
func (tx *Tx) journalMembers(k dbKey, ix *zindex, del bool) {
	jr := tx.db.jr
	if jr == nil {
		return
	}
	ix.order.Scan(func(e Entry) bool {
		if del {
			jr.addDelMember(k, e.Member)
		} else {
			jr.addSetMember(k, e.Member, e.Score)
		}
		return true
	})
}

// moveZIndex gives src's members to dst (dst was deleted first), in the
// data file too.
func (tx *Tx) moveZIndex(src dbKey, dst dbKey) {
	tx.mutating()
	ix := tx.db.takeZIndex(src)
	if ix == nil {
		return
	}
	tx.journalMembers(src, ix, true)
	tx.journalMembers(dst, ix, false)
	tx.db.putZIndex(dst, ix)
}

// copyZIndex gives dst (deleted first) a copy of src's members.
func (tx *Tx) copyZIndex(ix *zindex, dst dbKey) {
	tx.mutating()
	c := ix.clone()
	tx.journalMembers(dst, c, false)
	tx.db.putZIndex(dst, c)
}

// dropZIndexesOf deletes the members of every set of database d (FLUSHDB).
func (tx *Tx) dropZIndexesOf(d int) {
	for _, k := range tx.db.zindexKeys(func(k dbKey) bool { return k.db == d }) {
		tx.dropMembers(k)
	}
}

// swapZIndexes exchanges the sets of databases a and b (SWAPDB): every
// member is journalled deleted under its old database, then set under the
// new one, as the items of the other types are.
func (tx *Tx) swapZIndexes(a, b int) {
	tx.mutating()
	keys := tx.db.zindexKeys(func(k dbKey) bool { return k.db == a || k.db == b })
	moved := make([]*zindex, len(keys))
	for i, k := range keys {
		moved[i] = tx.db.takeZIndex(k)
		tx.journalMembers(k, moved[i], true)
	}
	for i, k := range keys {
		k.db = a + b - k.db
		tx.journalMembers(k, moved[i], false)
		tx.db.putZIndex(k, moved[i])
	}
}

// zindexKeys lists the registry's keys that keep returns true for.
func (db *DB) zindexKeys(keep func(dbKey) bool) []dbKey {
	db.zidx.mu.Lock()
	defer db.zidx.mu.Unlock()
	var out []dbKey
	for k := range db.zidx.m {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

// dropZIndexes forgets every index (FLUSHALL, whose one flush record
// deletes their members in the data file).
func (db *DB) dropZIndexes() {
	db.zidx.mu.Lock()
	db.jr.noteIndexes(db.zidx.m)
	db.zidx.replace(nil)
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
// records that the file is past that), then moves every such set's
// members from their items into its index.
func (db *DB) loadZSets() error {
	_, _, _, err := db.commit(func(btx *buntdb.Tx) error {
		db.indexZSets(btx, true)
		return nil
	})
	return err
}

// indexZSets moves the members of every sorted set kept as items into its
// index. upgrade first converts a file of an earlier version (journalled);
// a snapshot being restored is never one.
func (db *DB) indexZSets(btx *buntdb.Tx, upgrade bool) {
	tx := newTx(db, btx, true)
	var sets []dbKey
	tx.btx.AscendRange("", string([]byte{tagMeta}), string([]byte{tagMeta + 1}), func(k, v string) bool {
		m, ok := decodeMeta(v)
		if ok && m.Type == TypeZSet && len(m.Payload) == zItemsPayloadLen {
			sets = append(sets, dbKey{int(k[1]), k[2:]})
		}
		return true
	})
	if _, err := btx.Get(formatKey); err != nil && upgrade {
		for _, s := range sets {
			tx.deleteRange(dataPrefix(s.db, s.key) + string(zTagScore))
		}
		markZSetFormat(tx)
	}
	for _, s := range sets {
		if db.zindexOf(s.db, s.key) != nil {
			continue // built as the data file loaded (journal_replay.go)
		}
		tx.Select(s.db)
		z, err := tx.OpenZSet(s.key)
		if err != nil {
			continue
		}
		// The index is the members' only copy from now on; the
		// file keeps them, so their items go unjournalled.
		mp := memberPrefixOf(s.db, s.key)
		for m := range z.index().scores {
			db.deleteItem(btx, mp+m)
		}
		z.Release()
	}
}

// markZSetFormat records that no sorted set has score-ordered items in the
// data file (formatKey).
func markZSetFormat(tx *Tx) { tx.rawSet(formatKey, formatZSetInMemoryOrder) }
