package store

import (
	"encoding/binary"
	"encoding/hex"
	"math"

	"github.com/cespare/xxhash/v2"
	"github.com/tidwall/buntdb"
)

// The store's digest (RAFT DIGEST; a cluster's nodes compare theirs at the
// same log index) is kept up to date by every write, so that taking it
// costs nothing: hashing the whole store under its lock, as it was, stalled
// every client for about a second per million items.
//
// It is a sum, modulo 2^64 in each of two lanes, of a hash of every item as
// the data file holds it (itemSum): key and value (a key's type, expiry and contents
// are all in items). A member of a sorted set kept in an index counts as
// the member item the data file records for it (zset_index.go), so the
// digest depends only on what the store holds, not on how it came to hold
// it, nor on the order items were written. A write moves the sum by the
// difference of the hashes of what it replaced and what it wrote.
//
// Items change only through setItem, deleteItem and deleteAllItems, and
// indexes through the registry's link and unlink and the index's own
// insert, rescore and remove, each under the store's write lock (txMu or,
// before the store is shared, alone). A store loaded from a data file or a
// snapshot is summed once as it is loaded: loading reads every item anyway.

// storeDigest is a sum of item hashes, one per lane.
type storeDigest struct{ a, b uint64 }

func (d *storeDigest) add(s storeDigest) { d.a += s.a; d.b += s.b }
func (d *storeDigest) sub(s storeDigest) { d.a -= s.a; d.b -= s.b }

func (d storeDigest) plus(s storeDigest) storeDigest { d.add(s); return d }

// String is the digest in hex, 32 characters.
func (d storeDigest) String() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], d.a)
	binary.BigEndian.PutUint64(b[8:], d.b)
	return hex.EncodeToString(b[:])
}

// itemSum is item k -> v's share of the digest: xxhash64 of the key and
// of the value (one-shot, at memory speed: streaming the parts through one
// hash cost eight times as much on short items), mixed into two lanes by
// an invertible step, so that items whose key or value hash differs
// differ in their share.
func itemSum(k, v string) storeDigest {
	return pairSum(xxhash.Sum64String(k), xxhash.Sum64String(v))
}

// memberSum is the share of a member of an indexed sorted set whose member
// items have prefix mp: that of its item, mp+member -> the score's bits.
func memberSum(mp, member string, score float64) storeDigest {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], math.Float64bits(score))
	return pairSum(joinedSum(mp, member), xxhash.Sum64(v[:]))
}

// joinedSum is xxhash64 of a+b.
func joinedSum(a, b string) uint64 {
	var buf [256]byte
	if len(a)+len(b) <= len(buf) {
		n := copy(buf[:], a)
		n += copy(buf[n:], b)
		return xxhash.Sum64(buf[:n])
	}
	var d xxhash.Digest
	d.Reset()
	d.WriteString(a)
	d.WriteString(b)
	return d.Sum64()
}

// pairSum mixes a key's and a value's hashes into the two lanes: a
// Feistel step of two rounds, so (a, b) gives back (hk, hv).
func pairSum(hk, hv uint64) storeDigest {
	a := hk ^ mix64(hv^0x9e3779b97f4a7c15)
	return storeDigest{a, hv ^ mix64(a^0xc2b2ae3d27d4eb4f)}
}

// mix64 is MurmurHash3's 64-bit finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// setItem is btx.Set, keeping the digest.
func (db *DB) setItem(btx *buntdb.Tx, k, v string) (old string, replaced bool, err error) {
	old, replaced, err = btx.Set(k, v, nil)
	if err == nil {
		if replaced {
			db.items.sub(itemSum(k, old))
		}
		db.items.add(itemSum(k, v))
	}
	return old, replaced, err
}

// deleteItem is btx.Delete, keeping the digest.
func (db *DB) deleteItem(btx *buntdb.Tx, k string) (old string, err error) {
	old, err = btx.Delete(k)
	if err == nil {
		db.items.sub(itemSum(k, old))
	}
	return old, err
}

// deleteAllItems is btx.DeleteAll, keeping the digest.
func (db *DB) deleteAllItems(btx *buntdb.Tx) error {
	err := btx.DeleteAll()
	if err == nil {
		db.items = storeDigest{}
	}
	return err
}

// recountItemsIf counts the items afresh after buntdb took a transaction
// back (err: its function failed), which the digest moved with; txMu held.
func (db *DB) recountItemsIf(err error) {
	if err != nil {
		db.items = sumItems(db.bdb)
	}
}

// sumItems is the items' share of the digest, counted afresh.
func sumItems(bdb *buntdb.DB) storeDigest {
	var d storeDigest
	bdb.View(func(btx *buntdb.Tx) error {
		return btx.Ascend("", func(k, v string) bool {
			d.add(itemSum(k, v))
			return true
		})
	})
	return d
}

// sumMembers is the share of ix's members, registered under k.
func (ix *zindex) sumMembers(mp string) storeDigest {
	var d storeDigest
	for m, sc := range ix.scores {
		d.add(memberSum(mp, m, sc))
	}
	return d
}

// link counts ix, registered under k, in the digest; unlink takes it out.
// An index is registered under one key at most.
func (reg *zindexes) link(k dbKey, ix *zindex) {
	ix.mp = memberPrefixOf(k.db, k.key)
	ix.sum = ix.sumMembers(ix.mp)
	ix.reg = reg
	reg.sum.add(ix.sum)
}

func (reg *zindexes) unlink(ix *zindex) {
	if ix.reg == reg {
		reg.sum.sub(ix.sum)
	}
	ix.reg, ix.sum = nil, storeDigest{}
}

// noteMember moves the digest for a member of ix that went from old (when
// had) to score (when has).
func (ix *zindex) noteMember(member string, old float64, had bool, score float64, has bool) {
	if ix.reg == nil {
		return
	}
	var d storeDigest
	if had {
		d = memberSum(ix.mp, member, old)
		ix.sum.sub(d)
		ix.reg.sum.sub(d)
	}
	if has {
		d = memberSum(ix.mp, member, score)
		ix.sum.add(d)
		ix.reg.sum.add(d)
	}
}

// Digest is the store's digest: stores that hold the same items have the
// same one (RAFT DIGEST).
func (db *DB) Digest() string {
	db.txMu.RLock()
	defer db.txMu.RUnlock()
	return db.digestLocked()
}

// digestLocked is Digest; txMu held.
func (db *DB) digestLocked() string { return db.items.plus(db.zidx.sum).String() }

// recountDigest is the digest counted afresh from every item and indexed
// member, for tests that check the one kept; txMu held.
func (db *DB) recountDigest() string {
	d := sumItems(db.bdb)
	db.zidx.mu.Lock()
	for k, ix := range db.zidx.m {
		d.add(ix.sumMembers(memberPrefixOf(k.db, k.key)))
	}
	db.zidx.mu.Unlock()
	return d.String()
}
