package store

import (
	"github.com/tidwall/buntdb"
)

// A transaction changes memory when it commits; its records reach the data
// file afterwards (journal.go). When that write fails, the transaction
// must not stay: its client hears MISCONF, and a retry must not apply it a
// second time. So every change also notes how to take it back, and a
// failed write takes back every committed transaction whose records are
// not in the file, newest change first, before anything else runs
// (DB.takeBack). The notes of a transaction are dropped once its records
// are written.
//
// A note holds what the change replaced: buntdb hands back an item's old
// value, a sorted-set index its member's old score, the registry of
// indexes the index it replaced. Strings are shared, not copied: buntdb's
// and the indexes' strings never change.

type undoKind uint8

const (
	undoItem    undoKind = iota // item k back to v, or gone when !had
	undoMember                  // member k of ix back to score, or gone when !had
	undoIndex                   // the index of key k of database db back to ix (nil: none)
	undoIndexes                 // the whole registry of indexes back to indexes
)

type undoOp struct {
	kind    undoKind
	had     bool
	db      int
	k, v    string
	score   float64
	ix      *zindex
	indexes map[dbKey]*zindex
}

// noteItem records that item k, which held v when had, changed.
func (j *journal) noteItem(k, v string, had bool) {
	j.undoOpen = append(j.undoOpen, undoOp{kind: undoItem, k: k, v: v, had: had})
}

// noteMember records that member (the index's own copy) of ix changed
// from score, or was absent when !had.
func (j *journal) noteMember(ix *zindex, member string, score float64, had bool) {
	if j == nil {
		return
	}
	j.undoOpen = append(j.undoOpen, undoOp{kind: undoMember, ix: ix, k: member, score: score, had: had})
}

// noteIndex records that the index registered for k was ix (nil: none).
func (j *journal) noteIndex(k dbKey, ix *zindex) {
	if j == nil {
		return
	}
	j.undoOpen = append(j.undoOpen, undoOp{kind: undoIndex, db: k.db, k: k.key, ix: ix})
}

// noteIndexes records the whole registry before FLUSHALL dropped it.
func (j *journal) noteIndexes(m map[dbKey]*zindex) {
	if j == nil {
		return
	}
	j.undoOpen = append(j.undoOpen, undoOp{kind: undoIndexes, indexes: m})
}

// noteAllItems records every item before a FLUSHALL deletes them all.
func (j *journal) noteAllItems(btx *buntdb.Tx) {
	btx.Ascend("", func(k, v string) bool {
		j.undoOpen = append(j.undoOpen, undoOp{kind: undoItem, k: k, v: v, had: true})
		return true
	})
}

// applyUndo takes ops back, the last one first. The caller holds the
// store alone.
func (db *DB) applyUndo(ops []undoOp) error {
	err := db.bdb.Update(func(btx *buntdb.Tx) error {
		for i := len(ops) - 1; i >= 0; i-- {
			op := &ops[i]
			switch op.kind {
			case undoItem:
				if op.had {
					if _, _, err := db.setItem(btx, op.k, op.v); err != nil {
						return err
					}
				} else {
					db.deleteItem(btx, op.k)
				}
			case undoMember:
				if cur, ok := op.ix.scores[op.k]; ok {
					op.ix.remove(op.k, cur)
				}
				if op.had {
					op.ix.insert(op.k, op.score)
				}
			case undoIndex:
				k := dbKey{op.db, op.k}
				db.zidx.mu.Lock()
				if op.ix == nil {
					db.zidx.del(k)
				} else {
					db.zidx.put(k, op.ix)
				}
				db.zidx.mu.Unlock()
			case undoIndexes:
				db.zidx.mu.Lock()
				db.zidx.replace(op.indexes)
				db.zidx.mu.Unlock()
			}
		}
		return nil
	})
	db.recountItemsIf(err)
	return err
}
