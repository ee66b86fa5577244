package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"unsafe"

	"github.com/qlessd/qlessd/resp"
)

// Records reach the data file in frames, each written by one write(2): the
// records of the transactions one write carries (journal.go), or a chunk of
// a rewrite. A frame is a header and a body of whole records:
//
//	'&'  body length  CRC-32C of the body  link  CRC-32C of the 13 bytes before
//
// (numbers uint32, little endian). The header's own checksum tells a
// damaged length from a frame the file ends inside of: the last write cut
// short by a crash is dropped at start, while a changed byte anywhere stops
// start-up with its offset (loading a changed file silently changed data).
//
// The link chains the frames of one file: it is the header checksum of the
// frame before it in the file (0 for the file's first), so each header
// stands for every frame before it. A frame deleted, zeroed, repeated or
// moved in the middle of the file passes its own checksums, but the frame
// after the gap no longer links to the one before it, and start-up stops
// there as at any other damage. The link is the file's own, set as the frame
// is appended (journal.appendFrame): a cluster follower appends the
// leader's frames after its own history, and a rewrite copies frames into
// a new file, relinking each header (13 bytes checksummed) without
// touching the body. Only the loss of whole frames at the end of the file
// looks like a crash before they were written.
//
// Earlier versions wrote frames without a link, marked '#' (13-byte
// header), and before that bare records; both load as before, without the
// chain, and chained frames are appended after them until the next
// rewrite, which start-up runs soon after loading such a file.

const (
	frameMark      = '&'
	frameHeaderLen = 17
	// oldFrameMark and oldFrameHeaderLen are frames without a link.
	oldFrameMark      = '#'
	oldFrameHeaderLen = 13
	// frameTarget is the body size a rewrite's frames are cut at.
	frameTarget = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var errFrameTooLarge = errors.New("a write of more than 4 GiB of records")

// frameSpace is reserved at the start of a buffer of records, for
// sealFrame to fill in.
var frameSpace [frameHeaderLen]byte

// sealFrame fills in the header of the frame in b, whose first
// frameHeaderLen bytes were reserved, around the records after them,
// linked to link.
func sealFrame(b []byte, link uint32) error {
	n := len(b) - frameHeaderLen
	if n > math.MaxUint32 {
		return errFrameTooLarge
	}
	putFrameHeader(b, n, crc32.Checksum(b[frameHeaderLen:], castagnoli), link)
	return nil
}

// putFrameHeader writes into h the header of a frame of an n-byte body
// with checksum sum, linked to link.
func putFrameHeader(h []byte, n int, sum, link uint32) {
	h[0] = frameMark
	binary.LittleEndian.PutUint32(h[1:5], uint32(n))
	binary.LittleEndian.PutUint32(h[5:9], sum)
	setFrameLink(h, link)
}

// setFrameLink sets the link of the frame header at the start of h and
// its checksum.
func setFrameLink(h []byte, link uint32) {
	binary.LittleEndian.PutUint32(h[9:13], link)
	binary.LittleEndian.PutUint32(h[13:17], crc32.Checksum(h[:13], castagnoli))
}

// frameLink returns the link of a sealed frame header and its checksum:
// the link of the frame after it.
func frameLink(h []byte) (link, sum uint32) {
	return binary.LittleEndian.Uint32(h[9:13]), binary.LittleEndian.Uint32(h[13:17])
}

// parseFrameHeader returns the body length and checksum a frame header
// gives, or false when the header's own checksum does not match.
func parseFrameHeader(h *[frameHeaderLen]byte) (n int64, sum uint32, ok bool) {
	if h[0] != frameMark || binary.LittleEndian.Uint32(h[13:17]) != crc32.Checksum(h[:13], castagnoli) {
		return 0, 0, false
	}
	return int64(binary.LittleEndian.Uint32(h[1:5])), binary.LittleEndian.Uint32(h[5:9]), true
}

// parseOldFrameHeader is parseFrameHeader for a frame without a link.
func parseOldFrameHeader(h *[oldFrameHeaderLen]byte) (n int64, sum uint32, ok bool) {
	if h[0] != oldFrameMark || binary.LittleEndian.Uint32(h[9:13]) != crc32.Checksum(h[:9], castagnoli) {
		return 0, 0, false
	}
	return int64(binary.LittleEndian.Uint32(h[1:5])), binary.LittleEndian.Uint32(h[5:9]), true
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// frameWriter cuts the records a rewrite writes into frames of about
// frameTarget bytes, chained from the start of a new file.
type frameWriter struct {
	w    io.Writer
	buf  []byte // a frame being filled: frameSpace, then records
	size int64  // bytes written
	link uint32 // the next frame's link
}

func newFrameWriter(w io.Writer) *frameWriter {
	return &frameWriter{w: w, buf: append(make([]byte, 0, frameTarget+64<<10), frameSpace[:]...)}
}

// full writes the frame once it reached frameTarget.
func (fw *frameWriter) full() error {
	if len(fw.buf) < frameHeaderLen+frameTarget {
		return nil
	}
	return fw.flush()
}

// set adds the record setting k to v. A long value goes in a frame of its
// own, written from the item itself through the file's buffer: copied into
// the frame buffer, a 500 MB value cost a rewrite 500 MB more.
func (fw *frameWriter) set(k, v string) error {
	if len(v) < bigItem {
		fw.buf = appendSetRecord(fw.buf, k, v)
		return fw.full()
	}
	if err := fw.flush(); err != nil {
		return err
	}
	head := resp.AppendBulk(append(fw.buf, "*3\r\n$3\r\nset\r\n"...), k)
	head = strconv.AppendInt(append(head, '$'), int64(len(v)), 10)
	head = append(head, '\r', '\n')
	fw.buf = head[:frameHeaderLen]
	n := len(head) - frameHeaderLen + len(v) + 2
	if n > math.MaxUint32 {
		return errFrameTooLarge
	}
	sum := crc32.Update(crc32.Update(crcOf(head[frameHeaderLen:]), castagnoli, unsafe.Slice(unsafe.StringData(v), len(v))), castagnoli, crlf)
	putFrameHeader(head, n, sum, fw.link)
	_, fw.link = frameLink(head)
	for _, part := range []string{string(head), v, "\r\n"} {
		m, err := io.WriteString(fw.w, part)
		fw.size += int64(m)
		if err != nil {
			return err
		}
	}
	return nil
}

var crlf = []byte("\r\n")

// flush writes the frame being filled, if it holds any record.
func (fw *frameWriter) flush() error {
	if len(fw.buf) == frameHeaderLen {
		return nil
	}
	if err := sealFrame(fw.buf, fw.link); err != nil {
		return err
	}
	_, fw.link = frameLink(fw.buf)
	n, err := fw.w.Write(fw.buf)
	fw.size += int64(n)
	fw.buf = fw.buf[:frameHeaderLen]
	return err
}

// sliceSource serves a frame's body to a recordReader.
type sliceSource struct{ b []byte }

func (s *sliceSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

func (s *sliceSource) ReadByte() (byte, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c, nil
}

func (s *sliceSource) ReadSlice(delim byte) ([]byte, error) {
	i := bytes.IndexByte(s.b, delim)
	if i < 0 {
		line := s.b
		s.b = nil
		return line, io.EOF
	}
	line := s.b[:i+1]
	s.b = s.b[i+1:]
	return line, nil
}
