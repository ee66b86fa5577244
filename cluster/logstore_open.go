package cluster

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/raft"
)

// openLogStore opens the log in dir, reading every segment's records. A
// record cut short or damaged at the end of the last segment (a crash in
// the middle of an append, which was never acknowledged) is cut off;
// anywhere else it is an error.
func openLogStore(dir string, always bool) (*logStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	ls := &logStore{dir: dir, always: always}
	for i, name := range names {
		first, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(name), ".seg"), 10, 64)
		if err != nil {
			ls.Close()
			return nil, fmt.Errorf("cluster log: segment name %s: %w", name, err)
		}
		s, err := openSegment(name, first, i == len(names)-1)
		if err != nil {
			ls.Close()
			return nil, err
		}
		ls.segs = append(ls.segs, s)
	}
	return ls, nil
}

// openSegment reads a segment's records, checking each; last: the segment
// appends went to, whose damaged tail is cut off.
func openSegment(name string, first uint64, last bool) (*segment, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &segment{first: first, f: f}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 1<<20)
	var b []byte
	var l raft.Log
	for {
		var hdr [recordHeader]byte
		if _, err = io.ReadFull(br, hdr[:]); err == io.EOF {
			return s, nil
		}
		n := int(binary.BigEndian.Uint32(hdr[:]))
		if err == nil && n >= recordFixed && int64(n) <= fi.Size()-s.size-recordHeader {
			b = append(append(b[:0], hdr[:]...), make([]byte, n)...)
			if _, err = io.ReadFull(br, b[recordHeader:]); err == nil {
				var got uint64
				if got, _, err = decodeRecord(b, &l); err == nil && got != first+uint64(len(s.offs)) {
					err = fmt.Errorf("cluster log: record %d found where %d belongs in %s", got, first+uint64(len(s.offs)), name)
				}
			}
		} else if err == nil {
			err = errBadRecord
		}
		if err != nil {
			return s, s.damaged(last, err)
		}
		s.offs = append(s.offs, s.size)
		s.size += int64(len(b))
	}
}

// damaged cuts a segment off at its last whole record, when it is the one
// appends went to; err otherwise.
func (s *segment) damaged(last bool, err error) error {
	if !last {
		s.f.Close()
		return fmt.Errorf("cluster log: %s damaged at offset %d: %w", s.f.Name(), s.size, err)
	}
	if terr := s.f.Truncate(s.size); terr != nil {
		s.f.Close()
		return terr
	}
	return s.f.Sync()
}

// moveLogs brings the entries of a log kept in BoltDB (before this
// version) into the log store at dir, once: they are copied to a new
// directory, synced, and that directory renamed to dir, so a crash half
// way leaves BoltDB's copy the one read at the next start. BoltDB keeps
// term and vote; its entries are deleted after.
func moveLogs(from raft.LogStore, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return deleteAll(from)
	}
	tmp := dir + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	ls, err := openLogStore(tmp, false)
	if err != nil {
		return err
	}
	if err := copyLogs(from, ls); err != nil {
		ls.Close()
		return err
	}
	err = ls.Sync()
	if cerr := ls.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err == nil {
		err = syncDir(filepath.Dir(dir))
	}
	if err != nil {
		return fmt.Errorf("cluster log: moving the entries out of BoltDB: %w", err)
	}
	return deleteAll(from)
}

// heldRange is the first and last index from holds; last is 0 when it
// holds none.
func heldRange(from raft.LogStore) (first, last uint64, err error) {
	if first, err = from.FirstIndex(); err != nil {
		return 0, 0, err
	}
	last, err = from.LastIndex()
	return first, last, err
}

func copyLogs(from raft.LogStore, to *logStore) error {
	first, last, err := heldRange(from)
	if err != nil || last == 0 {
		return err
	}
	for i := first; i <= last; i++ {
		l := new(raft.Log)
		if err := from.GetLog(i, l); err == raft.ErrLogNotFound {
			continue // a gap: raft-boltdb keeps entries by index
		} else if err != nil {
			return err
		}
		if err := to.StoreLog(l); err != nil {
			return err
		}
	}
	return nil
}

func deleteAll(from raft.LogStore) error {
	first, last, err := heldRange(from)
	if err != nil || last == 0 {
		return err
	}
	return from.DeleteRange(first, last)
}
