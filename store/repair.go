package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
)

// repairTail checks the append-only file before buntdb loads it. A record cut
// short by a crash at the end of the file is dropped, with a log line saying
// how many bytes went; any other damage stops start-up, so data is never
// dropped silently.
func repairTail(path string, log *slog.Logger) error {
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
	good, err := scanRecords(bufio.NewReaderSize(f, 1<<20))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("data file %s is damaged at byte %d: %v; refusing to start (move the file aside to start empty, or truncate it to %d bytes to keep what precedes the damage)", path, good, err, good)
	}
	if good < fi.Size() {
		if err := f.Truncate(good); err != nil {
			return fmt.Errorf("truncate damaged tail of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			return err
		}
		log.Warn("dropped incomplete record at the end of the data file",
			"file", path, "kept_bytes", good, "dropped_bytes", fi.Size()-good)
	}
	return nil
}

// scanRecords reads RESP arrays of bulk strings and returns the offset just
// past the last complete one. io.ErrUnexpectedEOF means the input ended inside
// a record; any other error means a record is malformed.
func scanRecords(r *bufio.Reader) (int64, error) {
	var good, pos int64
	readLine := func() ([]byte, error) {
		line, err := r.ReadSlice('\n')
		pos += int64(len(line))
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		if len(line) < 3 || line[len(line)-2] != '\r' {
			return nil, fmt.Errorf("malformed line")
		}
		return line[:len(line)-2], nil
	}
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			return good, nil
		}
		if err != nil {
			return good, err
		}
		pos++
		if c == 0 {
			good = pos
			continue
		}
		if c != '*' {
			return good, fmt.Errorf("expected '*', found %q", c)
		}
		line, err := readLine()
		if err != nil {
			return good, err
		}
		n, perr := strconv.Atoi(string(line))
		if perr != nil || n < 0 {
			return good, fmt.Errorf("bad record length %q", line)
		}
		for i := 0; i < n; i++ {
			c, err := r.ReadByte()
			if err == io.EOF {
				return good, io.ErrUnexpectedEOF
			}
			if err != nil {
				return good, err
			}
			pos++
			if c != '$' {
				return good, fmt.Errorf("expected '$', found %q", c)
			}
			line, err := readLine()
			if err != nil {
				return good, err
			}
			size, perr := strconv.Atoi(string(line))
			if perr != nil || size < 0 {
				return good, fmt.Errorf("bad bulk length %q", line)
			}
			m, err := r.Discard(size + 2)
			pos += int64(m)
			if err == io.EOF || (err == nil && m < size+2) {
				return good, io.ErrUnexpectedEOF
			}
			if err != nil {
				return good, err
			}
		}
		good = pos
	}
}
