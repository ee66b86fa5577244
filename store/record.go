package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// maxBulk bounds one string of a record, as Redis's proto-max-bulk-len
// bounds a value: a damaged length must not ask for terabytes.
const maxBulk = 512 << 20

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

// recordSource is what records are read from: the data file through a
// bufio.Reader, or a frame's body.
type recordSource interface {
	io.Reader
	io.ByteReader
	ReadSlice(delim byte) ([]byte, error)
}

// newFileSource reads the first size bytes of r, with a buffer no larger
// than the file.
func newFileSource(r io.ReaderAt, size int64) *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(r, 0, size), int(min(max(size, 16), 1<<20)))
}

// recordReader reads the records buntdb and the journal write: RESP arrays
// of bulk strings, "set key value", "del key" or "flushdb", and the
// journal's "multi" and "exec" around a transaction. Zero bytes
// between records are skipped, as buntdb's loader skips them.
type recordReader struct {
	r    recordSource
	pos  int64 // bytes consumed
	good int64 // offset just past the last whole record
	end  int64 // where the input ends, if known (> 0): no string runs past it
	args []string
	// borrow: a record's strings point into a frame's body (sliceSource),
	// valid only until the next frame is read, instead of one allocation
	// per string; the start-up loader copies what it keeps.
	borrow bool
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
		return rr.array()
	}
}

// array reads the rest of a record whose '*' was read.
func (rr *recordReader) array() (record, error) {
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
		if rr.end > 0 && int64(size)+2 > rr.end-rr.pos {
			return record{}, io.ErrUnexpectedEOF
		}
		b, err := rr.bulk(size)
		if err != nil {
			return record{}, err
		}
		if b[size] != '\r' || b[size+1] != '\n' {
			return record{}, fmt.Errorf("bulk string of %d bytes not followed by CRLF", size)
		}
		rr.args = append(rr.args, unsafe.String(unsafe.SliceData(b), size))
	}
	r, err := decodeRecord(rr.args)
	if err != nil {
		return record{}, err
	}
	rr.good = rr.pos
	return r, nil
}

func decodeRecord(args []string) (record, error) {
	n := len(args)
	switch {
	case n == 3 && strings.EqualFold(args[0], "set"):
		return record{op: opSet, k: args[1], v: args[2]}, nil
	case n == 2 && strings.EqualFold(args[0], "del"):
		return record{op: opDel, k: args[1]}, nil
	case n == 1 && strings.EqualFold(args[0], "flushdb"):
		return record{op: opFlush}, nil
	case n == 1 && strings.EqualFold(args[0], "multi"):
		return record{op: opMulti}, nil
	case n == 1 && strings.EqualFold(args[0], "exec"):
		return record{op: opExec}, nil
	}
	return record{}, fmt.Errorf("unknown record of %d parts", n)
}

// bulk reads a string of size bytes and the two bytes after it.
func (rr *recordReader) bulk(size int) ([]byte, error) {
	if src, ok := rr.r.(*sliceSource); ok && rr.borrow && size+2 <= len(src.b) {
		b := src.b[: size+2 : size+2]
		src.b = src.b[size+2:]
		rr.pos += int64(size + 2)
		return b, nil
	}
	b := make([]byte, size+2)
	_, err := rr.full(b)
	return b, err
}

func (rr *recordReader) byte() (byte, error) {
	c, err := rr.r.ReadByte()
	if err == nil {
		rr.pos++
	}
	return c, err
}

// full fills b; io.ErrUnexpectedEOF when the input ends first.
func (rr *recordReader) full(b []byte) (int, error) {
	n, err := io.ReadFull(rr.r, b)
	rr.pos += int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// number reads a decimal length and its CRLF.
func (rr *recordReader) number() (int, error) {
	line, err := rr.r.ReadSlice('\n')
	rr.pos += int64(len(line))
	if err == io.EOF {
		return 0, io.ErrUnexpectedEOF
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		return 0, fmt.Errorf("a length line over %d bytes", len(line))
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
