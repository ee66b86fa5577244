package store

import (
	"errors"
	"sync/atomic"
	"time"
)

// What a failed write to the data file does: the transactions it carried,
// and every one committed since, are taken back (undo.go, DB.takeBack),
// their waiters get a WriteError, and write commands are refused until a
// probe finds the file writable again.

// outcome is what became of the records of one write: every transaction
// whose records it carries shares it.
type outcome struct {
	state atomic.Int32 // outcomePending, outcomeWritten or outcomeLost
	err   *WriteError  // set before state becomes outcomeLost
}

const (
	outcomePending int32 = iota
	outcomeWritten
	outcomeLost
)

// settled is the outcome of transactions nothing can take back any more.
var settled = func() *outcome { o := new(outcome); o.state.Store(outcomeWritten); return o }()

// result returns the outcome's error and whether it is decided.
func (o *outcome) result() (error, bool) {
	switch o.state.Load() {
	case outcomeWritten:
		return nil, true
	case outcomeLost:
		return o.err, true
	}
	return nil, false
}

// WriteError is a failed write to the data file. The transactions it
// carried, and every one committed after them, were taken back.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// cutTail cuts off what a failed write left past the last whole record.
func (j *journal) cutTail() error {
	if !j.cut {
		return nil
	}
	if err := j.f.Truncate(j.size); err != nil {
		return err
	}
	j.cut = false
	return nil
}

// dropUnwritten, with the store held alone after a write failed, empties
// pending, marks the outcomes of the write (o) and of everything committed
// since as lost, and returns the undo notes of both, oldest first: the
// caller takes them back. From then on writes are refused, and reads wait
// for nothing that was taken back.
func (j *journal) dropUnwritten(inflight []undoOp, o *outcome, we *WriteError, size int) []undoOp {
	j.mu.Lock()
	ops := append(inflight, j.undo...)
	clear(j.undo)
	j.pending, j.undo = j.pending[:0], j.undo[:0]
	later := j.cur
	j.cur = nil
	j.written.Store(j.seq.Load())
	j.newest.Store(settled)
	j.mu.Unlock()
	for _, lost := range []*outcome{o, later} {
		if lost != nil {
			lost.err = we
			lost.state.Store(outcomeLost)
		}
	}
	var re *ReplicationError
	if errors.As(we, &re) {
		// The node stopped leading: its writes are refused as a
		// replica's (SetReadOnly), not until a probe of the file.
		j.log.Warn("writes not yet replicated when this node stopped leading are taken back", "err", we.Err)
		return ops
	}
	j.refusal.Store(we)
	j.probeSize = probeFor(size)
	if !j.failed.Swap(true) {
		j.log.Error("write to the data file failed; the writes it carried are taken back and write commands are refused until the file can be written", "path", j.path, "err", we.Err)
	}
	return ops
}

// A probe writes as many zero bytes as the failed write carried (within
// these bounds) past the end of the file and cuts them off: writes resume
// once the write that failed would fit, as Redis resumes once the AOF
// buffer it keeps retrying is written. Zero bytes at the end of the file
// are dropped by the loader as a torn end, so a crash between the two
// loses nothing (zero bytes with a frame after them are damage).
const (
	minProbe   = 64 << 10
	maxProbe   = 4 << 20
	probeEvery = 50 * time.Millisecond // between probes while writes are refused
)

// probeFor is the probe size after a write of n bytes failed.
func probeFor(n int) int { return min(max(n, minProbe), maxProbe) }

// refusedWith returns why writes are refused, without probing: nil unless
// the last write failed.
func (j *journal) refusedWith() error {
	if !j.failed.Load() {
		return nil
	}
	if we := j.refusal.Load(); we != nil {
		return we
	}
	return nil
}

// refuses returns the error that refuses write commands: nil unless the
// last write failed and a probe still fails.
func (j *journal) refuses() error {
	if !j.failed.Load() {
		return nil
	}
	now := time.Now().UnixNano()
	if last := j.lastProbe.Load(); now-last < int64(probeEvery) || !j.lastProbe.CompareAndSwap(last, now) {
		return j.refusedWith()
	}
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if !j.failed.Load() {
		return nil
	}
	err := j.cutTail()
	if err == nil {
		var n int
		if len(j.probeZeros) < j.probeSize {
			j.probeZeros = make([]byte, j.probeSize)
		}
		n, err = j.f.Write(j.probeZeros[:j.probeSize])
		if n > 0 {
			j.cut = true
			if cerr := j.cutTail(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		we := &WriteError{Err: err}
		j.refusal.Store(we)
		return we
	}
	j.failed.Store(false)
	j.log.Warn("writes to the data file succeed again", "path", j.path)
	return nil
}
