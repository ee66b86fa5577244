package store

import (
	"sync"
	"time"
	"unsafe"

	"github.com/qlessd/qlessd/internal/memback"
	"github.com/tidwall/buntdb"
)

// Tx is one store transaction. Its clock is read once, so a command or a
// whole script sees keys expire at a single instant, as Redis freezes time
// during a script.
type Tx struct {
	db       *DB
	btx      *buntdb.Tx
	writable bool
	refuse   error // writes stop with this (ViewRefusingWrites)
	now      int64 // unix ms
	sel      int   // selected database index
	touched  []KeyRef
	keyBuf   []byte // scratch for keys that are only looked up
	metas    []metaEnt
	metaBuf  [8]metaEnt  // first entries of metas, saving an allocation
	freeHash *hashWriter // see borrowHash
	freeZSet *ZSet       // see ZSet.Release
	freeList *list       // see releaseList
	room     *Room       // see SetStringRoom

	counting  bool // see RecordLookups
	looked    []lookedUp
	lookedMap map[string]bool

	// Backing arrays for the first entries of keyBuf and touched: a
	// command's transaction then allocates nothing for them.
	keyArr     [64]byte
	touchedArr [4]KeyRef
}

// txPool recycles transactions with the arrays they grew (touched keys,
// metadata cache, the hash, sorted-set and list handles and their element
// arrays): the server runs one transaction per batch of writes, and their
// allocation was a tenth of the bytes a heartbeat allocated.
var txPool = sync.Pool{New: func() any {
	tx := new(Tx)
	tx.keyBuf = tx.keyArr[:0]
	tx.touched = tx.touchedArr[:0]
	return tx
}}

func newTx(db *DB, btx *buntdb.Tx, writable bool) *Tx {
	tx := txPool.Get().(*Tx)
	tx.db, tx.btx, tx.writable, tx.now = db, btx, writable, time.Now().UnixMilli()
	return tx
}

// release hands tx back to the pool once its transaction is over and
// nothing reads its touched keys any more. References to data are cleared
// so a pooled transaction keeps nothing alive, and a use after release
// finds no buntdb transaction rather than a stranger's.
func (tx *Tx) release() {
	clear(tx.touched)
	clear(tx.metas)
	clear(tx.looked)
	*tx = Tx{
		keyBuf:   tx.keyBuf[:0],
		touched:  tx.touched[:0],
		metas:    tx.metas[:0],
		looked:   tx.looked[:0],
		freeHash: tx.freeHash,
		freeZSet: tx.freeZSet,
		freeList: tx.freeList,
	}
	if h := tx.freeHash; h != nil {
		clear(h.ents[:cap(h.ents)])
		*h = hashWriter{ents: h.ents[:0]}
	}
	if z := tx.freeZSet; z != nil {
		clear(z.list[:cap(z.list)])
	}
	if l := tx.freeList; l != nil {
		clear(l.vals[:cap(l.vals)])
	}
	txPool.Put(tx)
}

// Select makes database index i current for the following operations.
func (tx *Tx) Select(i int) { tx.sel = i }

// Selected returns the current database index.
func (tx *Tx) Selected() int { return tx.sel }

// Writable reports whether the transaction may write.
func (tx *Tx) Writable() bool { return tx.writable }

// Now returns the transaction's clock in unix milliseconds.
func (tx *Tx) Now() int64 { return tx.now }

// Databases returns the number of database indexes.
func (tx *Tx) Databases() int { return tx.db.opts.Databases }

func (tx *Tx) touch(key string) {
	tx.touched = append(tx.touched, KeyRef{DB: tx.sel, Key: key})
}

// Touched returns the keys changed so far in this transaction.
func (tx *Tx) Touched() []KeyRef { return tx.touched }

// Touch records that key changed without going through a store write, so
// watchers and blocked clients hear of it.
func (tx *Tx) Touch(key string) { tx.touch(key) }

// lookup returns key's metadata, treating an expired key as absent (and
// deleting it in a write transaction).
func (tx *Tx) lookup(key string) (Meta, bool) {
	m, ok := tx.lookupMeta(key)
	if tx.counting {
		tx.countLookup(key, ok)
	}
	return m, ok
}

func (tx *Tx) lookupMeta(key string) (Meta, bool) {
	var m Meta
	if e := tx.cachedMeta(key); e != nil {
		if !e.ok {
			return Meta{}, false
		}
		m = e.meta()
	} else if sm, ok, found := tx.db.shared.get(tx.sel, key); found {
		tx.cacheMeta(key, sm, ok)
		if !ok {
			return Meta{}, false
		}
		m = sm
	} else {
		v, err := tx.btx.Get(tx.scratchMetaKey(key))
		ok := err == nil
		if ok {
			m, ok = decodeMeta(v)
		}
		tx.cacheMeta(key, m, ok)
		tx.shareRead(key, m, ok)
		if !ok {
			return Meta{}, false
		}
	}
	if m.ExpireAt != 0 && m.ExpireAt <= tx.now {
		if tx.writable {
			tx.remove(key, m)
		}
		return Meta{}, false
	}
	return m, true
}

// scratchMetaKey is metaKey in a buffer the next call reuses: for lookups
// only, since buntdb keeps the keys it is given to store or delete.
func (tx *Tx) scratchMetaKey(key string) string {
	b := append(tx.keyBuf[:0], tagMeta, byte(tx.sel))
	b = append(b, key...)
	tx.keyBuf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// lookupType returns key's metadata if it exists, ErrWrongType if it holds a
// type other than t.
func (tx *Tx) lookupType(key string, t Type) (Meta, bool, error) {
	m, ok := tx.lookup(key)
	if !ok {
		return Meta{}, false, nil
	}
	if m.Type != t {
		return Meta{}, false, ErrWrongType
	}
	return m, true, nil
}

// putMeta writes key's metadata, keeping the expiry index in step with it.
func (tx *Tx) putMeta(key string, old Meta, existed bool, m Meta) {
	if existed && old.ExpireAt != 0 && old.ExpireAt != m.ExpireAt {
		tx.rawDelete(expiryKey(tx.sel, old.ExpireAt, key))
	}
	if m.ExpireAt != 0 && (!existed || old.ExpireAt != m.ExpireAt) {
		tx.rawSet(expiryKey(tx.sel, m.ExpireAt, key), "")
	}
	mk := metaKey(tx.sel, key)
	item := tx.setMetaItem(mk, m)
	// The cached metadata shares the item's bytes: a long value given
	// uncopied (commands.KeepArg) is not kept twice.
	m.Payload = item[metaHeader:]
	tx.metaWritten(mk, key, m, true)
	tx.touch(key)
	if existed && old.Type == TypeString {
		memback.Gone(len(old.Payload))
	}
}

// remove deletes key's metadata, expiry entry and elements.
func (tx *Tx) remove(key string, m Meta) {
	mk := metaKey(tx.sel, key)
	tx.rawDelete(mk)
	tx.metaWritten(mk, key, Meta{}, false)
	if m.Type == TypeString {
		memback.Gone(len(m.Payload))
	}
	if m.ExpireAt != 0 {
		tx.rawDelete(expiryKey(tx.sel, m.ExpireAt, key))
	}
	if m.hasItems() {
		tx.deleteRange(dataPrefix(tx.sel, key))
	}
	if m.Type == TypeZSet {
		tx.dropMembers(dbKey{tx.sel, key})
	}
	tx.touch(key)
}

// deleteRange deletes every item whose key starts with prefix.
func (tx *Tx) deleteRange(prefix string) {
	var keys []string
	tx.ascendPrefix(prefix, func(k, _ string) bool {
		keys = append(keys, k)
		return true
	})
	for _, k := range keys {
		tx.rawDelete(k)
	}
}

// ascendPrefix iterates items whose key starts with prefix in key order.
func (tx *Tx) ascendPrefix(prefix string, fn func(k, v string) bool) {
	end := prefixEnd(prefix)
	if end == "" {
		tx.btx.AscendGreaterOrEqual("", prefix, fn)
		return
	}
	tx.btx.AscendRange("", prefix, end, fn)
}

// rawGet, rawSet and rawDelete give the type files direct access to items.
// rawSet, rawDelete and rawDeleteAll are the only ways items change: each
// change goes to buntdb and, with a data file, to the journal.
func (tx *Tx) rawGet(k string) (string, bool) {
	v, err := tx.btx.Get(k)
	if err != nil {
		return "", false
	}
	return v, true
}

// rawSet reports whether k already had a value.
func (tx *Tx) rawSet(k, v string) (replaced bool) {
	tx.mutating()
	old, replaced, err := tx.db.setItem(tx.btx, k, v)
	if err == nil && tx.db.jr != nil {
		tx.db.jr.addSet(k, v, old, replaced)
	}
	return replaced
}

// setMetaItem sets metadata item mk to m encoded, and returns the item.
// A long string's item is built in its record (journal_big.go), or around
// the value in the buffer it came in (room.go).
func (tx *Tx) setMetaItem(mk string, m Meta) string {
	room := tx.takeRoom(m.Payload)
	jr := tx.db.jr
	if jr == nil || m.Type != TypeString || len(m.Payload) < bigItem {
		item := m.encode()
		if room != nil {
			item = room.item(m)
		}
		tx.rawSet(mk, item)
		return item
	}
	tx.mutating()
	open, records, headRoom := jr.open, jr.records, jr.headRoom
	item, adopted := "", false
	if room != nil {
		item, adopted = jr.adoptSetItem(mk, m, room)
	}
	if !adopted {
		item = jr.addSetItem(mk, m)
	}
	old, replaced, err := tx.db.setItem(tx.btx, mk, item)
	if err != nil {
		switch {
		case adopted:
			jr.open, jr.records, jr.headRoom = open, records, headRoom
		case len(open) == 0:
			jr.open, jr.records, jr.headRoom = nil, records, false
		default:
			jr.open, jr.records = jr.open[:len(open)], records
		}
		return item
	}
	jr.noteItem(mk, old, replaced)
	return item
}

// takeRoom returns the room handed over with the value being set
// (SetStringRoom) when v is its value, once.
func (tx *Tx) takeRoom(v string) *Room {
	r := tx.room
	if !r.holds(v) {
		return nil
	}
	tx.room = nil
	return r
}

// rawDeleteAll deletes every item. buntdb refuses only read-only
// transactions and those inside an iteration; a write command runs in
// neither.
func (tx *Tx) rawDeleteAll() {
	tx.mutating()
	jr := tx.db.jr
	if jr == nil {
		tx.db.deleteAllItems(tx.btx)
		return
	}
	// Taking it back needs every item, so they are noted first.
	notes := len(jr.undoOpen)
	jr.noteAllItems(tx.btx)
	if tx.db.deleteAllItems(tx.btx) != nil {
		clear(jr.undoOpen[notes:])
		jr.undoOpen = jr.undoOpen[:notes]
		return
	}
	jr.addFlushAll()
}

// rawDelete reports whether k existed.
func (tx *Tx) rawDelete(k string) bool {
	tx.mutating()
	old, err := tx.db.deleteItem(tx.btx, k)
	if err != nil {
		return false
	}
	if tx.db.jr != nil {
		tx.db.jr.addDel(k, old)
	}
	return true
}
