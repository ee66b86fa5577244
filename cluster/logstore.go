package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// logStore is the cluster's log: raft's entries appended, one write per
// batch, to segment files in DIR/raft/log named by their first index, each
// record checked by a CRC. BoltDB, which held them before, cost every node
// a B+tree transaction per entry (copying, splitting and re-writing pages,
// msgpack-encoding the entry first): a third of a follower's CPU under
// load. Term and vote stay in BoltDB (raft's StableStore), written rarely.
//
// A record: length(4) crc32c(4) of the body, then the body:
// index(8) term(8) type(1) appended-at unix ns(8) extensions length(4),
// extensions, data.
type logStore struct {
	dir    string
	always bool // sync each append (appendfsync always)

	mu   sync.Mutex
	segs []*segment // in index order; the last one takes appends
	buf  []byte
}

type segment struct {
	first uint64  // index of its first record
	skip  uint64  // records deleted from its front (raft's compaction)
	offs  []int64 // offset of each record: offs[i] holds index first+i
	size  int64
	f     *os.File
}

// segmentLimit is the size past which appends go to a new segment, so
// compaction removes whole files.
var segmentLimit int64 = 64 << 20

const recordHeader = 8

// maxKeptBuffer bounds the append buffer kept for the next batch: one big
// value's entry does not hold its size for good.
const maxKeptBuffer = 4 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func (s *segment) last() uint64 { return s.first + uint64(len(s.offs)) - 1 }

func (s *segment) live() bool { return uint64(len(s.offs)) > s.skip }

func segmentName(first uint64) string { return fmt.Sprintf("%020d.seg", first) }

// bounds are the first and last index held; 0, 0 when none. mu held.
func (ls *logStore) bounds() (first, last uint64) {
	for _, s := range ls.segs {
		if s.live() {
			first = s.first + s.skip
			break
		}
	}
	for i := len(ls.segs) - 1; i >= 0; i-- {
		if s := ls.segs[i]; s.live() {
			last = s.last()
			break
		}
	}
	return first, last
}

func (ls *logStore) FirstIndex() (uint64, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	f, _ := ls.bounds()
	return f, nil
}

func (ls *logStore) LastIndex() (uint64, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	_, l := ls.bounds()
	return l, nil
}

// GetLog reads one entry back from its file.
func (ls *logStore) GetLog(index uint64, l *raft.Log) error {
	ls.mu.Lock()
	s := ls.find(index)
	if s == nil {
		ls.mu.Unlock()
		return raft.ErrLogNotFound
	}
	i := index - s.first
	end := s.size
	if i+1 < uint64(len(s.offs)) {
		end = s.offs[i+1]
	}
	b := make([]byte, end-s.offs[i])
	_, err := s.f.ReadAt(b, s.offs[i])
	ls.mu.Unlock()
	if err != nil {
		return err
	}
	got, _, err := decodeRecord(b, l)
	if err == nil && got != index {
		err = fmt.Errorf("cluster log: record %d found where %d belongs", got, index)
	}
	return err
}

// find is the segment holding index; nil when none does. mu held.
func (ls *logStore) find(index uint64) *segment {
	i := sort.Search(len(ls.segs), func(i int) bool { return ls.segs[i].first > index }) - 1
	if i < 0 {
		return nil
	}
	s := ls.segs[i]
	if !s.live() || index < s.first+s.skip || index > s.last() {
		return nil
	}
	return s
}

func (ls *logStore) StoreLog(l *raft.Log) error { return ls.StoreLogs([]*raft.Log{l}) }

// StoreLogs appends logs, which follow one another, in one write. An
// index past the last one held plus one (a follower that installed a
// snapshot) starts a new segment; raft deletes a conflicting tail before
// it appends over it.
func (ls *logStore) StoreLogs(logs []*raft.Log) error {
	if len(logs) == 0 {
		return nil
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	s, err := ls.appendTo(logs[0].Index)
	if err != nil {
		return err
	}
	buf := ls.buf[:0]
	offs := make([]int64, 0, len(logs))
	for i, l := range logs {
		if l.Index != logs[0].Index+uint64(i) {
			return fmt.Errorf("cluster log: entries %d and %d do not follow one another", logs[0].Index, l.Index)
		}
		offs = append(offs, s.size+int64(len(buf)))
		buf = appendRecord(buf, l)
	}
	if cap(buf) <= maxKeptBuffer {
		ls.buf = buf[:0]
	}
	if _, err := s.f.WriteAt(buf, s.size); err != nil {
		s.f.Truncate(s.size)
		return err
	}
	if ls.always {
		if err := s.f.Sync(); err != nil {
			return err
		}
	}
	s.offs = append(s.offs, offs...)
	s.size += int64(len(buf))
	return nil
}

// appendTo is the segment that takes index next, a new one when index
// does not follow the last or the last is full. mu held.
func (ls *logStore) appendTo(index uint64) (*segment, error) {
	if n := len(ls.segs); n > 0 {
		s := ls.segs[n-1]
		switch {
		case len(s.offs) == 0 && s.first == index:
			return s, nil
		case len(s.offs) > 0 && index <= s.last():
			return nil, fmt.Errorf("cluster log: append of %d over %d held", index, s.last())
		case len(s.offs) > 0 && index == s.last()+1 && s.size < segmentLimit:
			return s, nil
		}
		// Whatever the active file holds is synced before appends move on.
		if err := s.f.Sync(); err != nil {
			return nil, err
		}
		if len(s.offs) == 0 {
			if err := ls.removeLast(); err != nil {
				return nil, err
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(ls.dir, segmentName(index)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syncDir(ls.dir); err != nil {
		f.Close()
		return nil, err
	}
	s := &segment{first: index, f: f}
	ls.segs = append(ls.segs, s)
	return s, nil
}

// DeleteRange deletes first..max (raft's compaction after a snapshot) or
// min..last (a conflicting tail, or everything). mu taken.
func (ls *logStore) DeleteRange(min, max uint64) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	first, last := ls.bounds()
	switch {
	case last == 0:
		return nil
	case max >= last:
		return ls.truncate(min)
	case min <= first:
		return ls.dropFront(max)
	}
	return fmt.Errorf("cluster log: deleting %d-%d from inside %d-%d", min, max, first, last)
}

// truncate deletes index min and every later one. mu held.
func (ls *logStore) truncate(min uint64) error {
	for len(ls.segs) > 0 {
		s := ls.segs[len(ls.segs)-1]
		if s.first >= min || s.first+s.skip >= min {
			if err := ls.removeLast(); err != nil {
				return err
			}
			continue
		}
		if len(s.offs) > 0 && min <= s.last() {
			at := s.offs[min-s.first]
			if err := s.f.Truncate(at); err != nil {
				return err
			}
			if err := s.f.Sync(); err != nil {
				return err
			}
			s.offs, s.size = s.offs[:min-s.first], at
		}
		return nil
	}
	return nil
}

// dropFront deletes every index up to max, which is below the last: whole
// segments go, the one holding max keeps its file with the front marked
// deleted (after a restart those records show again: committed entries
// that a snapshot already covers, which raft may send or compact again).
func (ls *logStore) dropFront(max uint64) error {
	for len(ls.segs) > 1 && (!ls.segs[0].live() || ls.segs[0].last() <= max) {
		s := ls.segs[0]
		s.f.Close()
		if err := os.Remove(s.f.Name()); err != nil {
			return err
		}
		ls.segs = ls.segs[1:]
	}
	if s := ls.segs[0]; max >= s.first+s.skip {
		s.skip = max + 1 - s.first
	}
	return syncDir(ls.dir)
}

// removeLast closes and removes the last segment's file. mu held.
func (ls *logStore) removeLast() error {
	s := ls.segs[len(ls.segs)-1]
	s.f.Close()
	if err := os.Remove(s.f.Name()); err != nil {
		return err
	}
	ls.segs = ls.segs[:len(ls.segs)-1]
	return syncDir(ls.dir)
}

// Sync writes the active segment to disk (appendfsync everysec, once a
// second), outside the lock: appends go on meanwhile. Earlier segments
// were synced as appends moved past them.
func (ls *logStore) Sync() error {
	ls.mu.Lock()
	if len(ls.segs) == 0 {
		ls.mu.Unlock()
		return nil
	}
	f := ls.segs[len(ls.segs)-1].f
	ls.mu.Unlock()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

func (ls *logStore) Close() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var err error
	for _, s := range ls.segs {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
	}
	ls.segs = nil
	return err
}

func appendRecord(b []byte, l *raft.Log) []byte {
	at := len(b)
	b = append(b, make([]byte, recordHeader)...)
	b = binary.BigEndian.AppendUint64(b, l.Index)
	b = binary.BigEndian.AppendUint64(b, l.Term)
	b = append(b, byte(l.Type))
	var ns int64
	if !l.AppendedAt.IsZero() {
		ns = l.AppendedAt.UnixNano()
	}
	b = binary.BigEndian.AppendUint64(b, uint64(ns))
	b = binary.BigEndian.AppendUint32(b, uint32(len(l.Extensions)))
	b = append(b, l.Extensions...)
	b = append(b, l.Data...)
	body := b[at+recordHeader:]
	binary.BigEndian.PutUint32(b[at:], uint32(len(body)))
	binary.BigEndian.PutUint32(b[at+4:], crc32.Checksum(body, crcTable))
	return b
}

const recordFixed = 8 + 8 + 1 + 8 + 4

var errBadRecord = errors.New("cluster log: damaged record")

// decodeRecord reads the record at the start of b into l (its data and
// extensions sharing b) and returns its index and length.
func decodeRecord(b []byte, l *raft.Log) (uint64, int, error) {
	if len(b) < recordHeader {
		return 0, 0, errBadRecord
	}
	n := int(binary.BigEndian.Uint32(b))
	if n < recordFixed || n > len(b)-recordHeader {
		return 0, 0, errBadRecord
	}
	body := b[recordHeader : recordHeader+n]
	if crc32.Checksum(body, crcTable) != binary.BigEndian.Uint32(b[4:]) {
		return 0, 0, errBadRecord
	}
	ext := int(binary.BigEndian.Uint32(body[25:]))
	if ext > n-recordFixed {
		return 0, 0, errBadRecord
	}
	l.Index = binary.BigEndian.Uint64(body)
	l.Term = binary.BigEndian.Uint64(body[8:])
	l.Type = raft.LogType(body[16])
	l.AppendedAt = time.Time{}
	if ns := int64(binary.BigEndian.Uint64(body[17:])); ns != 0 {
		l.AppendedAt = time.Unix(0, ns)
	}
	l.Extensions = nil
	if ext > 0 {
		l.Extensions = body[recordFixed : recordFixed+ext]
	}
	l.Data = body[recordFixed+ext:]
	return l.Index, recordHeader + n, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
