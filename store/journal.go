package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/resp"
)

// The journal is the append-only data file. buntdb keeps the items in
// memory only; every change a write transaction makes is also encoded here,
// in buntdb's own record format (so files of earlier versions load), and
// written to the file after the transaction lets go of the store lock, in
// a checksummed frame per write (frame.go).
//
// buntdb's own persistence wrote each commit to the file inside the commit,
// under its single write lock: a write(2) of about a kilobyte per batch of
// commands, 10% of the server's time in a pop + complete load, on the path
// every other writer waits on. A write that met the once-a-second fsync
// stalled for up to tens of milliseconds with the lock held. Now the next
// batch runs while this one's records are written, and one write carries
// whatever batches committed meanwhile.
//
// No reply leaves before the records it may depend on are in the file:
// DB.Update returns only once its own transaction and every earlier one
// are written, and DB.View once everything committed before it is, so a
// reader never reports a value a crash could take back.
//
// A failed write takes every committed transaction whose records are not
// in the file back out of memory (undo.go): their clients hear MISCONF,
// readers that saw them read again, and the store refuses writes until a
// probe finds the file writable again, as Redis refuses writes after an
// AOF write error. Nothing whose client heard an error is applied, then
// or later.
type journal struct {
	path    string
	log     *slog.Logger
	latency *latencyHook

	// open holds the records of the running write transaction, records
	// counts them, undoOpen says how to take them back. Only the holder
	// of DB.txMu touches them.
	open     []byte
	records  int
	undoOpen []undoOp
	headRoom bool // open begins with openHead bytes of room (journal_big.go)

	mu      sync.Mutex    // guards pending, undo and cur
	pending []byte        // records of committed transactions not yet written
	undo    []undoOp      // how to take pending back, oldest change first
	cur     *outcome      // what becomes of pending; nil until a record comes
	seq     atomic.Uint64 // committed transactions that logged records

	// newest is the outcome of the newest committed transaction, which a
	// read waits for.
	newest atomic.Pointer[outcome]

	written   atomic.Uint64              // seq up to which records are in the file or taken back
	failed    atomic.Bool                // writes are refused: the last write failed
	refusal   atomic.Pointer[WriteError] // why, while failed
	lastProbe atomic.Int64               // unix ns of the last probe (refuses)

	wmu        sync.Mutex // one writer at a time; guards the fields below
	f          *os.File
	size       int64    // bytes of the file that hold whole records
	link       uint32   // the link of the next frame (frame.go)
	cut        bool     // bytes past size, from a failed write, are still to be cut off
	spare      []byte   // the buffer written last, reused for pending
	spareUndo  []undoOp // likewise for undo
	closed     bool
	probeSize  int                  // bytes a probe writes (refuses)
	probeZeros []byte               // what it writes, kept for the next probe
	dec        frameDecoder         // a follower's, for the frames it applies
	relinked   [frameHeaderLen]byte // the header appendFrame gives a frame

	// takeBack takes back the changes of inflight (in a failed write of
	// size bytes) and of every transaction committed since (DB.takeBack).
	takeBack func(inflight []undoOp, o *outcome, err *WriteError, size int)

	rewriting atomic.Bool // journal_rewrite.go
	// takeBacks counts failed writes, so that a rewrite or a snapshot
	// sees one happen while it copies.
	takeBacks atomic.Int64

	// repl takes each frame to the cluster before it counts as written
	// (replicate.go); nil when the node runs alone.
	repl Replicator
}

var errJournalClosed = errors.New("the data file is closed")

// maxKeptBuffer is the largest record buffer kept for reuse.
const maxKeptBuffer = 1 << 20

// openJournal opens (creating) the data file for appending after its last
// whole record; loadJournal has dropped any torn one, and found the link
// of the next frame.
func openJournal(path string, log *slog.Logger, link uint32) (*journal, error) {
	os.Remove(rewriteTemp(path))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat data file %s: %w", path, err)
	}
	j := &journal{path: path, log: log, f: f, size: st.Size(), link: link}
	j.newest.Store(settled)
	return j, nil
}

// addSet and addDel record one change of the running transaction, encoded
// as buntdb encodes them: RESP arrays of bulk strings, and how to take it
// back: the item's value before, if it had one.
func (j *journal) addSet(k, v, old string, had bool) {
	j.open = appendSetRecord(j.open, k, v)
	j.records++
	j.noteItem(k, old, had)
}

// appendSetRecord appends the record setting k to v, as the journal and a
// rewrite write it.
func appendSetRecord(b []byte, k, v string) []byte {
	return resp.AppendBulk(resp.AppendBulk(append(b, "*3\r\n$3\r\nset\r\n"...), k), v)
}

func (j *journal) addDel(k, old string) {
	j.open = resp.AppendBulk(append(j.open, "*2\r\n$3\r\ndel\r\n"...), k)
	j.records++
	j.noteItem(k, old, true)
}

// addSetMember and addDelMember record a member of sorted set k as the
// item it is in the data file (zset_index.go), building that item's key
// in the record itself. A store without a data file has no journal: they
// do nothing.
func (j *journal) addSetMember(k dbKey, member string, score float64) {
	if j == nil {
		return
	}
	j.open = appendMemberRecord(j.open, k, member, score)
	j.records++
}

func (j *journal) addDelMember(k dbKey, member string) {
	if j == nil {
		return
	}
	j.open = appendMemberKey(append(j.open, "*2\r\n$3\r\ndel\r\n"...), k, member)
	j.records++
}

// appendMemberRecord appends the set record of a sorted-set member: its
// score's 8 bytes, big endian, as the journal and a rewrite write it.
func appendMemberRecord(b []byte, k dbKey, member string, score float64) []byte {
	b = appendMemberKey(append(b, "*3\r\n$3\r\nset\r\n"...), k, member)
	b = append(b, "$8\r\n"...)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(score))
	return append(b, '\r', '\n')
}

// appendMemberKey appends memberPrefixOf(k.db, k.key) + member as one bulk
// string, written in place.
func appendMemberKey(b []byte, k dbKey, member string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(dataPrefixLen(k.key)+1+len(member)), 10)
	b = append(b, '\r', '\n')
	b = appendDataPrefix(b, k.db, k.key)
	b = append(b, zTagMember)
	b = append(b, member...)
	return append(b, '\r', '\n')
}

// addFlushAll records a FLUSHALL, whose items noteAllItems noted.
func (j *journal) addFlushAll() {
	j.open = append(j.open, recFlushAll...)
	j.records++
}

// A transaction of more than one record is framed by multi and exec
// records, as Redis frames a MULTI block or a script's effects in its AOF:
// loading drops a transaction whose exec never reached the file, so a
// crash in the middle of a write cannot keep half of a MULTI, a script or
// a batch.
const (
	recFlushAll = "*1\r\n$7\r\nflushdb\r\n"
	recMulti    = "*1\r\n$5\r\nmulti\r\n"
	recExec     = "*1\r\n$4\r\nexec\r\n"
)

// discard drops the records of a transaction buntdb rolled back: the only
// ones open, as seal empties open.
func (j *journal) discard() {
	j.open, j.records = j.open[:0], 0
	if cap(j.open) > maxKeptBuffer || j.headRoom {
		j.open, j.headRoom = nil, false // it may hold a long item (journal_big.go)
	}
	clear(j.undoOpen)
	j.undoOpen = j.undoOpen[:0]
}

// seal moves the committed transaction's records to pending and returns
// the sequence number and outcome every reply of it must wait for: its
// own, or, when it logged nothing, those of the last transaction that did
// (it may have read what that one wrote).
func (j *journal) seal() (uint64, *outcome) {
	if len(j.open) == 0 {
		return j.seq.Load(), j.newest.Load()
	}
	j.mu.Lock()
	if !j.takeOpen() {
		if len(j.pending) == 0 {
			j.pending = append(j.pending, frameSpace[:]...) // for sealFrame
		}
		if j.records > 1 {
			j.pending = append(j.pending, recMulti...)
			j.pending = append(j.pending, j.openRecords()...)
			j.pending = append(j.pending, recExec...)
		} else {
			j.pending = append(j.pending, j.openRecords()...)
		}
		j.open = j.open[:0]
		if j.headRoom {
			j.open, j.headRoom = nil, false
		}
	}
	if len(j.undo) == 0 {
		j.undo, j.undoOpen = j.undoOpen, j.undo[:0]
	} else {
		j.undo = append(j.undo, j.undoOpen...)
		clear(j.undoOpen)
		j.undoOpen = j.undoOpen[:0]
	}
	j.records = 0
	if cap(j.open) > maxKeptBuffer {
		j.open = nil // one huge transaction must not pin its buffer
	}
	if cap(j.undoOpen) > maxKeptUndo {
		j.undoOpen = nil
	}
	if j.cur == nil {
		j.cur = new(outcome)
	}
	o := j.cur
	j.newest.Store(o)
	seq := j.seq.Add(1)
	j.mu.Unlock()
	return seq, o
}

// maxKeptUndo is the most undo notes a buffer keeps room for.
const maxKeptUndo = 1 << 14

// flush returns once the records of the transaction with outcome o, and
// every earlier one, are in the file, or with the error that made them
// taken back. Writers queue on wmu; the one holding it writes all that is
// pending, so those behind it usually find their records written.
func (j *journal) flush(o *outcome) error {
	if err, done := o.result(); done {
		return err
	}
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if err, done := o.result(); done {
		return err
	}
	return j.writeLocked(true)
}

// writeLocked writes everything pending. A partial write is cut off so the
// file ends at a whole record; when the write fails, and takeBack is set,
// what it carried and everything committed since is taken back.
func (j *journal) writeLocked(takeBack bool) error {
	if j.closed {
		return errJournalClosed
	}
	j.mu.Lock()
	buf, undo, o, upto := j.pending, j.undo, j.cur, j.seq.Load()
	j.pending, j.undo, j.cur = j.spare[:0], j.spareUndo[:0], nil
	j.mu.Unlock()
	j.spare, j.spareUndo = nil, nil
	err := j.cutTail()
	if err == nil && len(buf) > 0 {
		err = sealFrame(buf, j.link) // what appendFrame will find, wmu held till then
	}
	if err == nil && len(buf) > 0 {
		err = j.writeFrame(buf)
	}
	if err != nil {
		we := &WriteError{Err: err}
		if !takeBack {
			return we
		}
		j.takeBacks.Add(1)
		j.takeBack(undo, o, we, len(buf))
		return we
	}
	if cap(buf) <= maxKeptBuffer {
		j.spare = buf[:0]
	}
	clear(undo)
	if cap(undo) <= maxKeptUndo {
		j.spareUndo = undo[:0]
	}
	j.written.Store(upto)
	if o != nil {
		o.state.Store(outcomeWritten)
	}
	if j.failed.Swap(false) {
		j.log.Warn("writes to the data file succeed again", "path", j.path)
	}
	return nil
}

// writeFrame writes a sealed frame to the file, or, in a cluster, has the
// cluster commit it, the Replicator writing it to the file as it applies
// it (AppendOwnFrame).
func (j *journal) writeFrame(buf []byte) error {
	start := time.Now()
	defer j.latency.since("aof-write", start)
	if j.repl != nil {
		return j.repl.Replicate(buf)
	}
	return j.appendFrame(buf)
}

// close writes what is pending and closes the file. A failed write takes
// nothing back: the process ends, and the store may be held for good
// (DB.Abandon).
func (j *journal) close() error {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if j.closed {
		return nil
	}
	err := j.writeLocked(false)
	j.closed = true
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}
