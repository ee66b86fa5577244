package store

import (
	"errors"
	"io"
	"strings"
)

// Loading runs on two goroutines: one reads the data file, checks its
// frames and parses their records, copying out what will be kept (the
// allocations and the copying, a third of the work); the other applies
// them to buntdb and the sorted sets (replay), in the order read. The
// reader is the same journalScan as ever, so every check of the frames and
// their chain is made exactly as before, and damage found stops start-up
// as before: records of a damaged file are never used.

// loadOp is a record of the data file being loaded, its strings its own.
type loadOp struct {
	op   recordOp
	k, v string // the item and its value; a member item keeps only v, when not scored
	// isMember: the item of a member of set (a set or a sorted set),
	// split from its key.
	isMember bool
	set      dbKey
	member   string
	scored   bool // an item of 8 bytes: score is its value
	score    float64
}

// loadBatchOps is how many records go from the reader to the applier at a
// time.
const loadBatchOps = 1024

var errLoadStopped = errors.New("loading stopped")

// replayReader turns the records a journalScan emits, borrowed from the
// frame being read, into loadOps, in batches.
type replayReader struct {
	batch   []loadOp
	out     chan<- []loadOp
	free    chan []loadOp // batches the applier is done with
	stop    <-chan struct{}
	lastSet dbKey // the set of the last member item, its key copied once
}

func (rr *replayReader) emit(r record) error {
	o := loadOp{op: r.op}
	if k, member, ok := splitMemberItem(r.k); ok && r.op != opFlush {
		if k != rr.lastSet {
			k.key = strings.Clone(k.key)
			rr.lastSet = k
		}
		o.isMember, o.set, o.member = true, rr.lastSet, strings.Clone(member)
		if r.op == opSet && len(r.v) == 8 {
			o.scored, o.score = true, memberScore(r.v)
		} else if r.op == opSet {
			o.v = strings.Clone(r.v)
		}
	} else if r.op != opFlush {
		o.k = strings.Clone(r.k)
		if r.op == opSet {
			o.v = strings.Clone(r.v)
		}
	}
	rr.batch = append(rr.batch, o)
	if len(rr.batch) < loadBatchOps {
		return nil
	}
	return rr.send()
}

// send hands the batch to the applier.
func (rr *replayReader) send() error {
	if len(rr.batch) == 0 {
		return nil
	}
	select {
	case rr.out <- rr.batch:
	case <-rr.stop:
		return errLoadStopped
	}
	select {
	case b := <-rr.free:
		rr.batch = b[:0]
	default:
		rr.batch = make([]loadOp, 0, loadBatchOps)
	}
	return nil
}

// load reads size bytes of the data file ra on a goroutine of its own and
// applies its records here. Its error is a read error or a failed apply.
func (rp *replay) load(ra io.ReaderAt, size int64) (JournalReport, error) {
	out := make(chan []loadOp, 8)
	stop := make(chan struct{})
	rr := &replayReader{out: out, free: make(chan []loadOp, 10), stop: stop, batch: make([]loadOp, 0, loadBatchOps)}
	var rep JournalReport
	var scanErr error
	go func() {
		defer close(out)
		s := &journalScan{ra: ra, emit: rr.emit, borrow: true}
		if rep, scanErr = s.scan(size); scanErr == nil {
			scanErr = rr.send()
		}
	}()
	var applyErr error
	for b := range out {
		for i := range b {
			if applyErr != nil {
				break
			}
			if applyErr = rp.apply(&b[i]); applyErr != nil {
				close(stop)
			}
		}
		clear(b)
		select {
		case rr.free <- b:
		default:
		}
	}
	if applyErr != nil {
		return rep, applyErr
	}
	return rep, scanErr
}
