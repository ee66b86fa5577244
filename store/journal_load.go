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

// loadJournal replays the data file into bdb, which is empty, and reports
// whether it held records or frames of earlier versions (without
// checksums, or without links), the link its next frame takes (frame.go)
// and the indexes of its sorted sets kept as items (journal_replay.go).
// The last write cut short by a crash (an incomplete frame, zero bytes
// after the last chained frame, or an incomplete record or transaction of
// a file without frames) is dropped, with a log line saying how many bytes
// went; any other damage stops start-up with its offset, so data is never
// dropped or changed silently.
func loadJournal(path string, bdb *buntdb.DB, log *slog.Logger) (old bool, link uint32, sets map[dbKey]*zindex, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, 0, nil, nil
	}
	if err != nil {
		return false, 0, nil, fmt.Errorf("open data file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, 0, nil, err
	}
	var rep JournalReport
	err = bdb.Update(func(btx *buntdb.Tx) error {
		rp, err := newReplay(btx)
		if err != nil {
			return err
		}
		if rep, err = rp.load(f, fi.Size()); err != nil {
			return fmt.Errorf("read data file %s: %w", path, err)
		}
		if rep.Damage != nil {
			return nil // nothing loaded is used
		}
		sets, err = rp.finish()
		return err
	})
	if err != nil {
		return false, 0, nil, err
	}
	if d := rep.Damage; d != nil {
		return false, 0, nil, fmt.Errorf("data file %s is damaged at byte %d: %s; refusing to start (qlessd check --dir %s --repair keeps the %d bytes before the damage, after saving a copy of the file)",
			path, d.At, d.Reason, filepath.Dir(path), rep.Good)
	}
	if rep.Torn > 0 {
		log.Warn("dropped an incomplete last write at the end of the data file", "file", path, "kept_bytes", rep.Good, "dropped_bytes", rep.Torn)
		if err := f.Truncate(rep.Good); err != nil {
			return false, 0, nil, fmt.Errorf("truncate the incomplete end of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return false, 0, nil, err
		}
	}
	return rep.Unchecked > 0 || rep.OldFrames > 0, rep.link, sets, nil
}

// JournalReport is what reading a data file found (qlessd check).
type JournalReport struct {
	Size      int64 // bytes in the file
	Good      int64 // bytes before a torn end or the damage: what loading keeps
	Records   int64 // set, del and flushdb records kept
	Frames    int64 // checksummed frames kept
	OldFrames int64 // of them, frames written before links, not chained
	Unchecked int64 // records kept that were written before checksums
	Torn      int64 // bytes of an incomplete last write, which start-up drops
	Damage    *JournalDamage
	link      uint32 // the link of a frame appended to the good bytes
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
	return (&journalScan{ra: r, emit: emit}).scan(size)
}

func (s *journalScan) scan(size int64) (JournalReport, error) {
	s.zeros = -1
	s.rep.Size = size
	s.rr = recordReader{r: newFileSource(s.ra, size), end: size}
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
	// chained is set once a chained frame was read; the next one links
	// to rep.link.
	chained bool
	zeros   int64 // where zero bytes after a chained frame began; -1: none
	// borrow: emitted records point into the frame being read, valid
	// until emit returns (recordReader.borrow).
	borrow bool
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
			if s.zeros >= 0 {
				s.torn(s.zeros) // a write the file was grown for, never written
			}
			return nil
		case err != nil:
			return err
		case c == 0 && s.chained: // a frame zeroed, or the end of the file
			if s.zeros < 0 {
				s.zeros = start
			}
			continue
		case c == 0: // buntdb's loader skips zero bytes, and so do we
			if !s.inTx {
				s.good = s.rr.pos
			}
			continue
		case s.zeros >= 0:
			return s.damage(s.zeros, fmt.Errorf("%d zero bytes where a frame should be (a frame was zeroed, or lost in a crash, and later ones kept)", start-s.zeros))
		case (c == frameMark || c == oldFrameMark) && s.inTx:
			return s.damage(start, errors.New("a checksummed frame inside a transaction without checksums"))
		case c == frameMark || c == oldFrameMark:
			if stop, err := s.frame(start, c); stop || err != nil {
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
func (s *journalScan) frame(start int64, mark byte) (stop bool, err error) {
	var h [frameHeaderLen]byte
	hl := int64(frameHeaderLen)
	if mark == oldFrameMark {
		hl = oldFrameHeaderLen
	}
	h[0] = mark
	if _, err := s.rr.full(h[1:hl]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			s.torn(start)
			return true, nil
		}
		return true, err
	}
	var n int64
	var sum uint32
	var ok bool
	if mark == oldFrameMark {
		n, sum, ok = parseOldFrameHeader((*[oldFrameHeaderLen]byte)(h[:oldFrameHeaderLen]))
	} else {
		n, sum, ok = parseFrameHeader(&h)
	}
	switch {
	case !ok:
		return true, s.damage(start, errors.New("the checksum of a frame header does not match"))
	case start+hl+n > s.rr.end:
		s.torn(start)
		return true, nil
	}
	if err := s.linkError(h[:hl]); err != nil {
		return true, s.damage(start, err)
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
	fr := recordReader{r: src, end: n, borrow: s.borrow}
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
			return true, s.damage(start+hl+at, fmt.Errorf("in a frame whose checksum matches: %v", err))
		}
	}
	if s.inTx {
		return true, s.damage(start, errors.New("a transaction does not end in its frame"))
	}
	s.rep.Frames++
	if mark == oldFrameMark {
		s.rep.OldFrames++
	} else {
		s.chained = true
		_, s.rep.link = frameLink(h[:])
	}
	s.good = s.rr.pos
	return false, nil
}

// linkError says what is wrong with where a whole frame, whose header h
// is, stands in the chain of frames (frame.go), or returns nil.
func (s *journalScan) linkError(h []byte) error {
	if h[0] == oldFrameMark {
		if s.chained {
			return errors.New("a frame of an earlier version (without a link) after chained frames")
		}
		return nil
	}
	link, _ := frameLink(h)
	switch {
	case link == s.rep.link:
		return nil
	case !s.chained:
		return errors.New("the first chained frame of the file links to a frame before it: frames before it are missing")
	}
	return errors.New("the frame does not link to the frame before it: a frame between them is missing, or frames are repeated or out of order")
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
		for i := 0; i+oldFrameHeaderLen <= n; i++ {
			if bn, hl, ok := frameAt(buf[i:n]); ok && off+int64(i)+hl+bn <= end {
				return off + int64(i), true, nil
			}
		}
	}
	return 0, false, nil
}

// frameAt returns the body and header lengths of a frame header, of
// either kind, with a matching checksum at the start of b.
func frameAt(b []byte) (n, hl int64, ok bool) {
	switch {
	case b[0] == frameMark && len(b) >= frameHeaderLen:
		n, _, ok = parseFrameHeader((*[frameHeaderLen]byte)(b[:frameHeaderLen]))
		return n, frameHeaderLen, ok
	case b[0] == oldFrameMark:
		n, _, ok = parseOldFrameHeader((*[oldFrameHeaderLen]byte)(b[:oldFrameHeaderLen]))
		return n, oldFrameHeaderLen, ok
	}
	return 0, 0, false
}
