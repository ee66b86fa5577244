package store

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"

	"github.com/tidwall/buntdb"
)

// Replication (cluster mode). The leader's committed transactions leave as
// the frames the journal writes anyway: journal.writeLocked hands each
// frame to the Replicator before it counts as written, and the Replicator
// returns once a majority of the cluster holds it and this node applied it
// (writing the frame to the data file through AppendOwnFrame). A frame the
// cluster did not take is taken back, as a failed write to the file is.
// Followers apply the leader's frames as records (ApplyReplicated): no
// command, script, clock or random number runs twice.

// Replicator takes the leader's frames to the cluster.
type Replicator interface {
	// Replicate returns nil once frame is committed and applied here, or
	// the error that keeps it from the cluster.
	Replicate(frame []byte) error
}

// ReplicationError is a write the cluster did not take: this node stopped
// leading before a majority acknowledged it. It may yet be committed by
// the next leader, so its clients are told it is uncertain.
type ReplicationError struct{ Err error }

func (e *ReplicationError) Error() string { return e.Err.Error() }
func (e *ReplicationError) Unwrap() error { return e.Err }

// RedisReply is the error reply for a write caught by a change of leader.
func (e *ReplicationError) RedisReply() string {
	return "TRYAGAIN the cluster's leader changed while this write was being replicated; it may or may not have been applied"
}

// ReadReply is the error reply for a command that wrote nothing, answered
// with a batch whose write a change of leader caught: it changed nothing,
// and what it read may be gone.
func (e *ReplicationError) ReadReply() string {
	return "TRYAGAIN the cluster's leader changed while this read was being served; it changed nothing, retry it"
}

// ReadOnlyError refuses writes on a node that does not lead, in the words
// of a Redis replica.
type ReadOnlyError struct{}

func (ReadOnlyError) Error() string      { return "READONLY You can't write against a read only replica." }
func (ReadOnlyError) RedisReply() string { return ReadOnlyError{}.Error() }

var errNoDataFile = errors.New("cluster mode needs a data directory")

// ErrClosed is what applying to a store being closed returns.
var ErrClosed = errJournalClosed

// SetReplicator makes every write go through r (nil: none). Set it before
// clients are served.
func (db *DB) SetReplicator(r Replicator) {
	if db.jr != nil {
		db.jr.repl = r
	}
}

// SetReadOnly refuses (on) or allows local writes. It takes the store, so
// no local transaction is half way through when it returns.
func (db *DB) SetReadOnly(on bool) {
	db.txMu.Lock()
	db.readOnly.Store(on)
	db.txMu.Unlock()
}

// ReadOnly reports whether local writes are refused.
func (db *DB) ReadOnly() bool { return db.readOnly.Load() }

// AppendOwnFrame writes a frame this node proposed to the data file. The
// caller is the Replicator, called by journal.writeLocked, which holds the
// file's writer lock for it while it waits for the frame's commit.
func (db *DB) AppendOwnFrame(frame []byte) error {
	return db.jr.appendFrame(frame)
}

// appendFrame writes a sealed frame, linked to the frame before it in
// this file (frame.go); wmu held (by the caller or for it). A frame this
// node sealed links there already and is written as it is. Another
// node's (a follower applying the leader's, whose file has a history of
// its own), or one of an earlier version, gets a header of this file's,
// written with the body in one writev(2): the frame belongs to the
// cluster's log, which must not change under it.
func (j *journal) appendFrame(frame []byte) error {
	if j.closed {
		return errJournalClosed
	}
	if err := j.cutTail(); err != nil {
		return err
	}
	var n int
	var err error
	var next uint32
	h, hl, relink := relinkedHeader(frame, j.link)
	if !relink {
		n, err = j.f.Write(frame)
		_, next = frameLink(frame)
	} else {
		j.relinked = h // not escaping to the heap for writev, as h would
		n, err = writev(j.f, j.relinked[:], frame[hl:])
		_, next = frameLink(j.relinked[:])
	}
	if err != nil && n > 0 {
		j.cut = true
		j.cutTail()
	}
	if err == nil {
		j.size += int64(n)
		j.link = next
	}
	return err
}

// ApplyReplicated applies a frame the cluster committed that this node
// did not write: its records go into the store and the frame into the data
// file. Local writes are refused from now on (the caller lets them in again
// once it leads), and any still on their way to the cluster are settled
// first, so none is taken back over what this frame changed.
func (db *DB) ApplyReplicated(frame []byte) error {
	j := db.jr
	if j == nil {
		return errNoDataFile
	}
	if err := db.settleAsReplica(); err != nil {
		return err
	}
	defer j.wmu.Unlock()
	// Decoded under wmu, which guards the decoder's buffers.
	recs, err := j.dec.records(frame)
	if err != nil {
		return err
	}
	db.txMu.Lock()
	touched, err := db.applyRecords(recs, j.dec.touched[:0])
	db.shared.drop()
	db.txMu.Unlock()
	j.dec.release()
	if err != nil {
		return err
	}
	ferr := j.appendFrame(frame)
	if db.onCommit != nil && len(touched) > 0 {
		db.onCommit(touched)
	}
	j.dec.keepTouched(touched)
	if ferr != nil {
		return &FileError{Err: ferr}
	}
	return nil
}

// FileError is a frame applied to the store that did not reach the data
// file.
type FileError struct{ Err error }

func (e *FileError) Error() string { return "write to the data file: " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// settleAsReplica refuses local writes from now on, settles those still
// on their way to the cluster (they fail and are taken back), and returns
// holding the data file's writer lock, unless the store is closed.
func (db *DB) settleAsReplica() error {
	j := db.jr
	if !db.readOnly.Load() {
		// Only a change takes the store: a follower applies frame
		// after frame already read-only.
		db.SetReadOnly(true)
	}
	j.flush(j.newest.Load())
	j.wmu.Lock()
	if j.closed {
		j.wmu.Unlock()
		return errJournalClosed
	}
	return nil
}

// applyRecords applies records to the store, appending to touched the
// keys whose metadata they changed; txMu held. Members of sorted
// sets kept in an index go to the index (zset_index.go); a metadata record
// that makes a key such a set moves its member items into a new index,
// and one that makes it anything else drops the index.
func (db *DB) applyRecords(recs []record, touched []KeyRef) ([]KeyRef, error) {
	err := db.bdb.Update(func(btx *buntdb.Tx) error {
		for _, r := range recs {
			if r.op == opFlush {
				if err := db.deleteAllItems(btx); err != nil {
					return err
				}
				db.zidx.mu.Lock()
				db.zidx.replace(nil)
				db.zidx.mu.Unlock()
				continue
			}
			if ix, member := db.indexedMember(r.k); ix != nil {
				applyMember(ix, member, r)
				continue
			}
			if r.op == opSet {
				r.k, r.v = ownItem(r.k, r.v)
			}
			if err := db.applyRecord(btx, r); err != nil {
				return err
			}
			if len(r.k) >= 2 && r.k[0] == tagMeta {
				if r.op != opSet {
					r.k = strings.Clone(r.k)
				}
				k := dbKey{int(r.k[1]), r.k[2:]}
				touched = append(touched, KeyRef{DB: k.db, Key: k.key})
				reindexZSet(db, btx, k, r)
			}
		}
		return nil
	})
	db.recountItemsIf(err)
	return touched, err
}

// ownItem copies an item the store is to keep out of the frame it was
// read from, key and value in one allocation.
func ownItem(k, v string) (string, string) {
	kv := k + v
	return kv[:len(k)], kv[len(k):]
}

// applyRecord applies a set, del or flush record to the store's items.
func (db *DB) applyRecord(btx *buntdb.Tx, r record) error {
	switch r.op {
	case opSet:
		_, _, err := db.setItem(btx, r.k, r.v)
		return err
	case opDel:
		db.deleteItem(btx, r.k)
	case opFlush:
		return db.deleteAllItems(btx)
	}
	return nil
}

// indexedMember returns the index and the member an item key names when
// it is a member of a sorted set with an index; nil otherwise.
func (db *DB) indexedMember(item string) (*zindex, string) {
	if len(item) < 3 || item[0] != tagData {
		return nil, ""
	}
	n, w := binary.Uvarint([]byte(item[2:min(len(item), 2+binary.MaxVarintLen64)]))
	start := 2 + w
	if w <= 0 || uint64(len(item)-start) <= n || item[start+int(n)] != zTagMember {
		return nil, ""
	}
	ix := db.zindexOf(int(item[1]), item[start:start+int(n)])
	if ix == nil {
		return nil, ""
	}
	return ix, item[start+int(n)+1:]
}

// applyMember sets or deletes a member in an index.
func applyMember(ix *zindex, member string, r record) {
	old, had := ix.scores[member]
	if r.op == opDel {
		if had {
			ix.remove(member, old)
		}
		return
	}
	if len(r.v) != 8 {
		return
	}
	score := memberScore(r.v)
	if had {
		ix.rescore(member, old, score)
	} else {
		ix.insert(strings.Clone(member), score)
	}
}

// reindexZSet keeps k's index in step with its metadata item, just
// applied by r: a sorted set kept as items gets an index holding its
// member items, which leave buntdb; any other value loses the index.
func reindexZSet(db *DB, btx *buntdb.Tx, k dbKey, r record) {
	m, ok := decodeMeta(r.v)
	kept := r.op == opSet && ok && m.Type == TypeZSet && len(m.Payload) == zItemsPayloadLen
	has := db.zindexOf(k.db, k.key) != nil
	switch {
	case kept && !has:
		ix := newZIndex(0)
		mp := memberPrefixOf(k.db, k.key)
		var items []string
		collect := func(ik, iv string) bool {
			if !strings.HasPrefix(ik, mp) {
				return false
			}
			if len(iv) == 8 {
				ix.insert(strings.Clone(ik[len(mp):]), memberScore(iv))
				items = append(items, ik)
			}
			return true
		}
		btx.AscendGreaterOrEqual("", mp, collect)
		for _, ik := range items {
			db.deleteItem(btx, ik)
		}
		db.zidx.mu.Lock()
		db.zidx.put(k, ix)
		db.zidx.mu.Unlock()
	case !kept && has:
		db.zidx.mu.Lock()
		db.zidx.del(k)
		db.zidx.mu.Unlock()
	}
}

// memberScore reads a member item's value: its score's bits, big endian.
func memberScore(v string) float64 {
	return math.Float64frombits(binary.BigEndian.Uint64([]byte(v)))
}
