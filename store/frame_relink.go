package store

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// relinkedHeader returns the header frame takes in a file whose next
// frame links to link, and the length of the header it replaces; ok is
// false when frame's own header is that already. A frame of an earlier
// version (without a link) gets a chained header.
func relinkedHeader(frame []byte, link uint32) (h [frameHeaderLen]byte, hl int, ok bool) {
	if frame[0] == oldFrameMark {
		h[0] = frameMark
		copy(h[1:9], frame[1:9]) // length and body checksum
		setFrameLink(h[:], link)
		return h, oldFrameHeaderLen, true
	}
	if l, _ := frameLink(frame); l == link {
		return h, frameHeaderLen, false
	}
	copy(h[:], frame[:frameHeaderLen])
	setFrameLink(h[:], link)
	return h, frameHeaderLen, true
}

// writev writes a then b to f in one writev(2) (more only when the
// kernel takes part of them), returning the bytes written.
func writev(f *os.File, a, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	bufs := [][]byte{a, b}
	total := 0
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for len(bufs) > 0 {
			n, e := unix.Writev(int(fd), bufs)
			if e == unix.EINTR {
				continue
			}
			if e != nil {
				werr = &os.PathError{Op: "write", Path: f.Name(), Err: e}
				return true
			}
			if n == 0 {
				werr = io.ErrShortWrite
				return true
			}
			total += n
			for n > 0 && len(bufs) > 0 {
				k := min(n, len(bufs[0]))
				bufs[0], n = bufs[0][k:], n-k
				if len(bufs[0]) == 0 {
					bufs = bufs[1:]
				}
			}
		}
		return true
	})
	if err == nil {
		err = werr
	}
	return total, err
}

// relinkFrames copies the chained frames in bytes [from, to) of src to
// dst (a rewrite's new file), each relinked to the one before it there,
// the first to link; it returns the link of the frame after them.
func relinkFrames(dst io.Writer, src io.ReaderAt, from, to int64, link uint32) (uint32, error) {
	r := io.NewSectionReader(src, from, to-from)
	var h [frameHeaderLen]byte
	for at := from; at < to; {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return link, fmt.Errorf("read the data file's tail at byte %d: %w", at, err)
		}
		n, _, ok := parseFrameHeader(&h)
		if !ok {
			return link, fmt.Errorf("the data file's tail holds no chained frame at byte %d", at)
		}
		setFrameLink(h[:], link)
		_, link = frameLink(h[:])
		if _, err := dst.Write(h[:]); err != nil {
			return link, err
		}
		if _, err := io.CopyN(dst, r, n); err != nil {
			return link, fmt.Errorf("copy the data file's tail: %w", err)
		}
		at += frameHeaderLen + n
	}
	return link, nil
}
