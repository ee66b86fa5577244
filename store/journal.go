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
)

// The journal is the append-only data file. buntdb keeps the items in
// memory only; every change a write transaction makes is also encoded here,
// in buntdb's own record format (so files of earlier versions load), and
// written to the file after the transaction lets go of the store lock.
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
// reader never reports a value a crash could take back. A failed write
// keeps the records pending; the failing transaction's clients hear
// MISCONF, and the store refuses writes until a retry (the next write
// command or the once-a-second tick) gets everything into the file, as
// Redis refuses writes after an AOF write error.
type journal struct {
	path string
	log  *slog.Logger

	// open holds the records of the running write transaction, records
	// counts them. Only the holder of DB.txMu touches them.
	open    []byte
	records int

	mu      sync.Mutex    // guards pending
	pending []byte        // records of committed transactions not yet written
	seq     atomic.Uint64 // committed transactions that logged records

	written atomic.Uint64 // seq up to which records are in the file
	failed  atomic.Bool   // the last write failed; pending is being retried

	wmu    sync.Mutex // one writer at a time; guards the fields below
	f      *os.File
	size   int64  // bytes of the file that hold whole records
	spare  []byte // the buffer written last, reused for pending
	closed bool

	rewriting atomic.Bool // journal_rewrite.go
}

var errJournalClosed = errors.New("the data file is closed")

// maxKeptBuffer is the largest record buffer kept for reuse.
const maxKeptBuffer = 1 << 20

// openJournal opens (creating) the data file for appending after its last
// whole record; loadJournal has dropped any torn one.
func openJournal(path string, log *slog.Logger) (*journal, error) {
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
	return &journal{path: path, log: log, f: f, size: st.Size()}, nil
}

// addSet and addDel record one change of the running transaction, encoded
// as buntdb encodes them: RESP arrays of bulk strings.
func (j *journal) addSet(k, v string) {
	j.open = appendSetRecord(j.open, k, v)
	j.records++
}

// appendSetRecord appends the record setting k to v, as the journal and a
// rewrite write it.
func appendSetRecord(b []byte, k, v string) []byte {
	return appendBulk(appendBulk(append(b, "*3\r\n$3\r\nset\r\n"...), k), v)
}

func (j *journal) addDel(k string) {
	j.open = appendBulk(append(j.open, "*2\r\n$3\r\ndel\r\n"...), k)
	j.records++
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

func appendBulk(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// discard drops the records of a transaction buntdb rolled back: the only
// ones open, as seal empties open.
func (j *journal) discard() { j.open, j.records = j.open[:0], 0 }

// seal moves the committed transaction's records to pending and returns
// the sequence number every reply of it must wait for: its own, or, when
// it logged nothing, that of the last transaction that did (it may have
// read what that one wrote).
func (j *journal) seal() uint64 {
	if len(j.open) == 0 {
		return j.seq.Load()
	}
	j.mu.Lock()
	switch {
	case j.records > 1:
		j.pending = append(j.pending, recMulti...)
		j.pending = append(j.pending, j.open...)
		j.pending = append(j.pending, recExec...)
		j.open = j.open[:0]
	case len(j.pending) == 0:
		j.pending, j.open = j.open, j.pending[:0]
	default:
		j.pending = append(j.pending, j.open...)
		j.open = j.open[:0]
	}
	j.records = 0
	if cap(j.open) > maxKeptBuffer {
		j.open = nil // one huge transaction must not pin its buffer
	}
	seq := j.seq.Add(1)
	j.mu.Unlock()
	return seq
}

// flush returns once the records of transaction seq and every earlier one
// are in the file. Writers queue on wmu; the one holding it writes all that
// is pending, so those behind it usually find their records written.
func (j *journal) flush(seq uint64) error {
	if j.written.Load() >= seq && !j.failed.Load() {
		return nil
	}
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if j.written.Load() >= seq && !j.failed.Load() {
		return nil
	}
	return j.writeLocked()
}

// writeLocked writes everything pending. On failure the records stay
// pending, ahead of any committed since, and a partial write is cut off so
// the file ends at a whole record.
func (j *journal) writeLocked() error {
	if j.closed {
		return errJournalClosed
	}
	if j.failed.Load() {
		if err := j.f.Truncate(j.size); err != nil {
			return err
		}
	}
	j.mu.Lock()
	buf, upto := j.pending, j.seq.Load()
	j.pending = j.spare[:0]
	j.mu.Unlock()
	j.spare = nil
	if len(buf) > 0 {
		n, err := j.f.Write(buf)
		if err != nil {
			j.mu.Lock()
			j.pending = append(buf, j.pending...)
			j.mu.Unlock()
			if n > 0 {
				// Cut the torn record now if we can; the retry cuts it
				// otherwise, before writing anything after it.
				j.f.Truncate(j.size)
			}
			if !j.failed.Swap(true) {
				j.log.Error("write to the data file failed; write commands are refused until it succeeds", "path", j.path, "err", err)
			}
			return err
		}
		j.size += int64(n)
	}
	if cap(buf) <= maxKeptBuffer {
		j.spare = buf[:0]
	}
	j.written.Store(upto)
	if j.failed.Swap(false) {
		j.log.Warn("writes to the data file succeed again", "path", j.path)
	}
	return nil
}

// refuses returns the error of the last failed write after a retry failed
// too: write commands are then refused before they run.
func (j *journal) refuses() error {
	if !j.failed.Load() {
		return nil
	}
	return j.flush(j.seq.Load())
}

// close writes what is pending and closes the file.
func (j *journal) close() error {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if j.closed {
		return nil
	}
	err := j.writeLocked()
	j.closed = true
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}
