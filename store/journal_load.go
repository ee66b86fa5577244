package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/buntdb"
)

// loadBatch is how many records one buntdb transaction replays at start-up:
// a transaction keeps a rollback entry per key it changes.
const loadBatch = 8192

// maxBulk bounds one string of a record, as Redis's proto-max-bulk-len
// bounds a value: a damaged length must not ask for terabytes.
const maxBulk = 512 << 20

// loadJournal replays the data file into bdb. A record or a transaction cut
// short by a crash at the end of the file is dropped, with a log line saying
// how many bytes went; any other damage stops start-up, so data is never
// dropped silently.
func loadJournal(path string, bdb *buntdb.DB, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open data file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	rr := recordReader{r: bufio.NewReaderSize(f, 1<<20)}
	var batch []record
	apply := func() error {
		err := bdb.Update(func(btx *buntdb.Tx) error {
			for _, r := range batch {
				switch r.op {
				case opSet:
					if _, _, err := btx.Set(r.k, r.v, nil); err != nil {
						return err
					}
				case opDel:
					btx.Delete(r.k)
				case opFlush:
					if err := btx.DeleteAll(); err != nil {
						return err
					}
				}
			}
			return nil
		})
		batch = batch[:0]
		return err
	}
	// A transaction's records are held until its exec record: one cut
	// short by the end of the file is dropped whole (journal.go).
	var tx []record
	inTx := false
	var txStart int64
	for {
		start := rr.good
		r, err := rr.next()
		keep := rr.good
		if inTx {
			keep = txStart
		}
		if err == io.EOF && inTx {
			err = io.ErrUnexpectedEOF
		}
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			what := "dropped incomplete record at the end of the data file"
			if inTx {
				what = "dropped incomplete transaction at the end of the data file"
			}
			log.Warn(what, "file", path, "kept_bytes", keep, "dropped_bytes", fi.Size()-keep)
			if err := f.Truncate(keep); err != nil {
				return fmt.Errorf("truncate damaged tail of %s: %w", path, err)
			}
			if err := f.Sync(); err != nil {
				return err
			}
			break
		}
		at := rr.good
		if err == nil {
			if err = framingError(r.op, inTx); err != nil {
				at, keep = start, min(keep, start)
			}
		}
		if err != nil {
			return fmt.Errorf("data file %s is damaged at byte %d: %v; refusing to start (move the file aside to start empty, or truncate it to %d bytes to keep what precedes the damage)", path, at, err, keep)
		}
		switch r.op {
		case opMulti:
			inTx, txStart, tx = true, start, tx[:0]
			continue
		case opExec:
			batch = append(batch, tx...)
			inTx = false
		default:
			if inTx {
				tx = append(tx, r)
				continue
			}
			batch = append(batch, r)
		}
		if len(batch) >= loadBatch {
			if err := apply(); err != nil {
				return err
			}
		}
	}
	return apply()
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

type recordOp byte

const (
	opSet recordOp = iota
	opDel
	opFlush
	opMulti // the records up to the next opExec are one transaction
	opExec
)

// record is one change read back from the data file.
type record struct {
	op   recordOp
	k, v string
}

// recordReader reads the records buntdb and the journal write: RESP arrays
// of bulk strings, "set key value", "del key" or "flushdb", and the
// journal's "multi" and "exec" around a transaction. Zero bytes
// between records are skipped, as buntdb's loader skips them.
type recordReader struct {
	r    *bufio.Reader
	pos  int64 // bytes consumed
	good int64 // offset just past the last whole record
	args []string
}

// next returns the next record; io.EOF at a clean end, io.ErrUnexpectedEOF
// when the input ends inside a record, another error when one is malformed.
func (rr *recordReader) next() (record, error) {
	for {
		c, err := rr.byte()
		if err != nil {
			return record{}, err
		}
		if c == 0 {
			rr.good = rr.pos
			continue
		}
		if c != '*' {
			return record{}, fmt.Errorf("expected '*', found %q", c)
		}
		break
	}
	n, err := rr.number()
	if err != nil {
		return record{}, err
	}
	rr.args = rr.args[:0]
	for i := 0; i < n; i++ {
		c, err := rr.byte()
		if err == io.EOF {
			return record{}, io.ErrUnexpectedEOF
		}
		if err != nil {
			return record{}, err
		}
		if c != '$' {
			return record{}, fmt.Errorf("expected '$', found %q", c)
		}
		size, err := rr.number()
		if err != nil {
			return record{}, err
		}
		if size > maxBulk {
			return record{}, fmt.Errorf("bulk length %d over %d", size, maxBulk)
		}
		b := make([]byte, size+2)
		m, err := io.ReadFull(rr.r, b)
		rr.pos += int64(m)
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return record{}, io.ErrUnexpectedEOF
		}
		if err != nil {
			return record{}, err
		}
		if b[size] != '\r' || b[size+1] != '\n' {
			return record{}, fmt.Errorf("bulk string of %d bytes not followed by CRLF", size)
		}
		rr.args = append(rr.args, unsafe.String(unsafe.SliceData(b), size))
	}
	var r record
	switch {
	case n == 3 && strings.EqualFold(rr.args[0], "set"):
		r = record{op: opSet, k: rr.args[1], v: rr.args[2]}
	case n == 2 && strings.EqualFold(rr.args[0], "del"):
		r = record{op: opDel, k: rr.args[1]}
	case n == 1 && strings.EqualFold(rr.args[0], "flushdb"):
		r = record{op: opFlush}
	case n == 1 && strings.EqualFold(rr.args[0], "multi"):
		r = record{op: opMulti}
	case n == 1 && strings.EqualFold(rr.args[0], "exec"):
		r = record{op: opExec}
	default:
		return record{}, fmt.Errorf("unknown record of %d parts", n)
	}
	rr.good = rr.pos
	return r, nil
}

func (rr *recordReader) byte() (byte, error) {
	c, err := rr.r.ReadByte()
	if err == nil {
		rr.pos++
	}
	return c, err
}

// number reads a decimal length and its CRLF.
func (rr *recordReader) number() (int, error) {
	line, err := rr.r.ReadSlice('\n')
	rr.pos += int64(len(line))
	if err == io.EOF {
		return 0, io.ErrUnexpectedEOF
	}
	if err != nil {
		return 0, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return 0, fmt.Errorf("malformed line")
	}
	n, perr := strconv.Atoi(string(line[:len(line)-2]))
	if perr != nil || n < 0 {
		return 0, fmt.Errorf("bad length %q", line[:len(line)-2])
	}
	return n, nil
}
