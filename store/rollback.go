package store

import "errors"

// takeBack is the journal's answer to a failed write (journal.takeBack): it
// takes the store alone, so that nothing runs on what is about to go, and
// takes back the failed write's transactions and every one committed
// after them, newest change first. The journal's writer lock is held: the
// store lock comes second, as nothing that holds the store waits for the
// writer lock.
func (db *DB) takeBack(inflight []undoOp, o *outcome, we *WriteError, size int) {
	db.txMu.Lock()
	defer db.txMu.Unlock()
	ops := db.jr.dropUnwritten(inflight, o, we, size)
	if err := db.applyUndo(ops); err != nil {
		db.log.Error("taking back the writes of a failed write to the data file failed", "err", err)
	}
	db.shared.drop()
	clear(ops)
}

// refusal makes a write in a transaction that refuses writes stop: see
// ViewRefusingWrites.
type refusal struct{ err error }

// mutating is called before a transaction changes anything.
func (tx *Tx) mutating() {
	if tx.refuse != nil {
		panic(refusal{tx.refuse})
	}
}

// Refusal returns the error that refuses the transaction's writes: nil
// unless it runs in ViewRefusingWrites. Code that runs commands (a
// script's redis.call) checks it before a write command.
func (tx *Tx) Refusal() error { return tx.refuse }

// WritesRefused returns why write commands are refused: nil unless the
// last write to the data file failed and the file still cannot be written.
func (db *DB) WritesRefused() error {
	if db == nil || db.jr == nil {
		return nil
	}
	if db.readOnly.Load() {
		return ReadOnlyError{}
	}
	if err := db.jr.refuses(); err != nil {
		return err
	}
	return nil
}

// WriteRefusal is WritesRefused without a probe, for code that holds the
// store: a probe waits for the data file's writer, which may be waiting
// for the store.
func (db *DB) WriteRefusal() error {
	if db == nil || db.jr == nil {
		return nil
	}
	if db.readOnly.Load() {
		return ReadOnlyError{}
	}
	return db.jr.refusedWith()
}

// RefusedError is a write that ViewRefusingWrites stopped.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// ViewRefusingWrites runs fn, which may write, while writes are refused
// (refusal is WritesRefused's error): as View, but the first change fn
// tries stops it, before anything changed, and ViewRefusingWrites returns
// a RefusedError. Redis runs a script while it refuses writes and fails
// the script's first write command the same way.
func (db *DB) ViewRefusingWrites(refusal error, fn func(tx *Tx) error) error {
	return db.view(refusal, fn)
}

// callRefusing runs fn, turning the refusal of a write into a
// RefusedError.
func callRefusing(tx *Tx, fn func(tx *Tx) error) (err error) {
	if tx.refuse != nil {
		defer func() {
			if r := recover(); r != nil {
				rf, ok := r.(refusal)
				if !ok {
					panic(r)
				}
				err = &RefusedError{rf.err}
			}
		}()
	}
	return fn(tx)
}

// isTakenBack reports whether err says a transaction was taken back.
func isTakenBack(err error) bool {
	var we *WriteError
	return errors.As(err, &we)
}
