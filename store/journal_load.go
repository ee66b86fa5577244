package store

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tidwall/buntdb"
)

// loadBatch is how many records one buntdb transaction replays at start-up:
// a transaction keeps a rollback entry per key it changes.
const loadBatch = 8192

// loadJournal replays the data file into bdb and reports whether it held
// records written before checksums. The last write cut short by a crash
// (an incomplete frame, or an incomplete record or transaction of a file
// without frames) is dropped, with a log line saying how many bytes went;
// any other damage stops start-up with its offset, so data is never
// dropped or changed silently.
func loadJournal(path string, bdb *buntdb.DB, log *slog.Logger) (unchecked bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open data file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	var batch []record
	apply := func() error {
		err := bdb.Update(func(btx *buntdb.Tx) error {
			for _, r := range batch {
				if err := applyRecord(btx, r); err != nil {
					return err
				}
			}
			return nil
		})
		clear(batch)
		batch = batch[:0]
		return err
	}
	rep, err := scanJournal(f, fi.Size(), func(r record) error {
		batch = append(batch, r)
		if len(batch) < loadBatch {
			return nil
		}
		return apply()
	})
	if err != nil {
		return false, fmt.Errorf("read data file %s: %w", path, err)
	}
	if d := rep.Damage; d != nil {
		return false, fmt.Errorf("data file %s is damaged at byte %d: %s; refusing to start (qlessd check --dir %s --repair keeps the %d bytes before the damage, after saving a copy of the file)",
			path, d.At, d.Reason, filepath.Dir(path), rep.Good)
	}
	if err := apply(); err != nil {
		return false, err
	}
	if rep.Torn > 0 {
		log.Warn("dropped an incomplete last write at the end of the data file", "file", path, "kept_bytes", rep.Good, "dropped_bytes", rep.Torn)
		if err := f.Truncate(rep.Good); err != nil {
			return false, fmt.Errorf("truncate the incomplete end of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return false, err
		}
	}
	return rep.Unchecked > 0, nil
}

func applyRecord(btx *buntdb.Tx, r record) error {
	switch r.op {
	case opSet:
		if _, _, err := btx.Set(r.k, r.v, nil); err != nil {
			return err
		}
	case opDel:
		btx.Delete(r.k)
	case opFlush:
		return btx.DeleteAll()
	}
	return nil
}

// JournalReport is what reading a data file found (qlessd check).
type JournalReport struct {
	Size      int64 // bytes in the file
	Good      int64 // bytes before a torn end or the damage: what loading keeps
	Records   int64 // set, del and flushdb records kept
	Frames    int64 // checksummed frames kept
	Unchecked int64 // records kept that were written before checksums
	Torn      int64 // bytes of an incomplete last write, which start-up drops
	Damage    *JournalDamage
}

// JournalDamage is where and how a data file is damaged.
type JournalDamage struct {
	At     int64
	Reason string
}

// scanJournal reads the data file (size bytes of r), passing each record a
// whole transaction keeps to emit, in order; it stops at damage, which it
// reports. Its error is a read error or emit's.
func scanJournal(r io.ReaderAt, size int64, emit func(record) error) (JournalReport, error) {
	s := &journalScan{ra: r, emit: emit}
	s.rep.Size = size
	s.rr = recordReader{r: newFileSource(r, size), end: size}
	err := s.run()
	if s.rep.Damage == nil && s.rep.Torn == 0 {
		s.rep.Good = s.good
	}
	return s.rep, err
}

// journalScan is one reading of a data file.
type journalScan struct {
	ra      io.ReaderAt
	rr      recordReader // over the file
	emit    func(record) error
	good    int64 // end of the last whole record, transaction or frame
	tx      []record
	inTx    bool
	txStart int64
	body    []byte // the frame being read, reused
	rep     JournalReport
}

func (s *journalScan) run() error {
	for {
		start := s.rr.pos
		c, err := s.rr.byte()
		switch {
		case err == io.EOF:
			if s.inTx {
				s.torn(s.txStart)
			}
			return nil
		case err != nil:
			return err
		case c == 0: // buntdb's loader skips zero bytes, and so do we
			if !s.inTx {
				s.good = s.rr.pos
			}
			continue
		case c == frameMark && s.inTx:
			return s.damage(start, errors.New("a checksummed frame inside a transaction without checksums"))
		case c == frameMark:
			if stop, err := s.frame(start); stop || err != nil {
				return err
			}
		case c == '*' && s.rep.Frames > 0:
			return s.damage(start, errors.New("a record without a checksum after checksummed ones"))
		case c == '*':
			if stop, err := s.bareRecord(start); stop || err != nil {
				return err
			}
		default:
			return s.damage(start, fmt.Errorf("expected a record or a frame, found %q", c))
		}
	}
}

// frame reads the frame that starts at start, its mark read; stop says
// the reading ends there (torn or damaged).
func (s *journalScan) frame(start int64) (stop bool, err error) {
	var h [frameHeaderLen]byte
	h[0] = frameMark
	if _, err := s.rr.full(h[1:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			s.torn(start)
			return true, nil
		}
		return true, err
	}
	n, sum, ok := parseFrameHeader(&h)
	switch {
	case !ok:
		return true, s.damage(start, errors.New("the checksum of a frame header does not match"))
	case start+frameHeaderLen+n > s.rr.end:
		s.torn(start)
		return true, nil
	}
	if int64(cap(s.body)) < n {
		s.body = make([]byte, n)
	}
	body := s.body[:n]
	if _, err := s.rr.full(body); err != nil {
		return true, err
	}
	if crc := crcOf(body); crc != sum {
		return true, s.damage(start, fmt.Errorf("the checksum of a frame of %d bytes does not match", n))
	}
	src := &sliceSource{b: body}
	fr := recordReader{r: src, end: n}
	for {
		at := fr.pos
		r, err := fr.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = s.take(r, start)
		}
		if err != nil {
			return true, s.damage(start+frameHeaderLen+at, fmt.Errorf("in a frame whose checksum matches: %v", err))
		}
	}
	if s.inTx {
		return true, s.damage(start, errors.New("a transaction does not end in its frame"))
	}
	s.rep.Frames++
	s.good = s.rr.pos
	return false, nil
}

// bareRecord reads a record written before frames, at start, its '*'
// read.
func (s *journalScan) bareRecord(start int64) (stop bool, err error) {
	r, err := s.rr.array()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		keep := start
		if s.inTx {
			keep = s.txStart
		}
		// A frame past it shows the file went on: its length is damaged.
		if at, found, err := findFrame(s.ra, keep+1, s.rr.end); err != nil || found {
			if err != nil {
				return true, err
			}
			return true, s.damage(start, fmt.Errorf("a record runs past a checksummed frame at byte %d", at))
		}
		s.torn(keep)
		return true, nil
	}
	if err == nil {
		err = s.take(r, start)
	}
	if err != nil {
		return true, s.damage(start, err)
	}
	s.rep.Unchecked++
	if !s.inTx {
		s.good = s.rr.pos
	}
	return false, nil
}

// take handles a record read at start: a transaction's records are held
// until its exec record (journal.go), others passed on.
func (s *journalScan) take(r record, start int64) error {
	if err := framingError(r.op, s.inTx); err != nil {
		return err
	}
	switch r.op {
	case opMulti:
		s.inTx, s.txStart, s.tx = true, start, s.tx[:0]
	case opExec:
		s.inTx = false
		for _, r := range s.tx {
			if err := s.pass(r); err != nil {
				return err
			}
		}
		clear(s.tx)
	default:
		if s.inTx {
			s.tx = append(s.tx, r)
			return nil
		}
		return s.pass(r)
	}
	return nil
}

func (s *journalScan) pass(r record) error {
	s.rep.Records++
	return s.emit(r)
}

// torn records that the file ends in a write cut short, from keep on.
func (s *journalScan) torn(keep int64) {
	s.rep.Good = keep
	s.rep.Torn = s.rep.Size - keep
}

// damage records damage at offset at; what precedes the last whole
// record, transaction or frame before it is good.
func (s *journalScan) damage(at int64, why error) error {
	good := min(s.good, at)
	if s.inTx {
		good = min(good, s.txStart)
	}
	s.rep.Good = good
	s.rep.Damage = &JournalDamage{At: at, Reason: why.Error()}
	return nil
}

// framingError says what is wrong with a multi or exec record where it
// stands, or returns nil.
func framingError(op recordOp, inTx bool) error {
	switch {
	case op == opMulti && inTx:
		return errors.New("a transaction begins inside another")
	case op == opExec && !inTx:
		return errors.New("a transaction ends that never began")
	}
	return nil
}

// findFrame looks for a whole frame with a matching header checksum in
// [from, end) of r: proof that a record running to the end of the file is
// not the last write.
func findFrame(r io.ReaderAt, from, end int64) (int64, bool, error) {
	const chunk = 1 << 20
	buf := make([]byte, chunk+frameHeaderLen)
	for off := from; off < end; off += chunk {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), end-off)], off)
		if err != nil && err != io.EOF {
			return 0, false, err
		}
		for i := 0; i+frameHeaderLen <= n; i++ {
			if buf[i] != frameMark {
				continue
			}
			h := (*[frameHeaderLen]byte)(buf[i : i+frameHeaderLen])
			if bn, _, ok := parseFrameHeader(h); ok && off+int64(i)+frameHeaderLen+bn <= end {
				return off + int64(i), true, nil
			}
		}
	}
	return 0, false, nil
}
