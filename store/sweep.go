package store

import (
	"encoding/binary"
	"time"
)

// The sweeper deletes expired keys in small batches so that it never holds the
// write lock for long; reads already treat expired keys as absent.
const (
	sweepInterval = 100 * time.Millisecond
	sweepBatch    = 200
)

func (db *DB) sweepLoop() {
	defer db.wg.Done()
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			for db.sweepOnce() == sweepBatch {
				select {
				case <-db.stop:
					return
				default:
				}
			}
		}
	}
}

// sweepOnce deletes up to sweepBatch expired keys and returns how many.
func (db *DB) sweepOnce() int {
	n := 0
	db.Update(func(tx *Tx) error {
		for d := 0; d < db.opts.Databases && n < sweepBatch; d++ {
			prefix := expiryPrefix(d)
			var due []string
			tx.ascendPrefix(prefix, func(k, _ string) bool {
				at := int64(binary.BigEndian.Uint64([]byte(k[2:10])))
				if at > tx.now || len(due)+n >= sweepBatch {
					return false
				}
				due = append(due, k[10:])
				return true
			})
			tx.sel = d
			for _, key := range due {
				tx.lookup(key) // deletes the key as it has expired
				n++
			}
		}
		return nil
	})
	return n
}

// SweepExpired runs one sweep pass now; tests and DEBUG use it.
func (db *DB) SweepExpired() int { return db.sweepOnce() }
