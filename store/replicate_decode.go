package store

import (
	"errors"
	"fmt"
	"io"
)

// frameDecoder decodes the frames a follower applies (ApplyReplicated),
// one after another, reusing its buffers: a frame is checked and read
// where it lies, and its records' strings point into it, so applyRecords
// copies what the store keeps of them.
type frameDecoder struct {
	src     sliceSource
	args    []string
	recs    []record
	touched []KeyRef // the keys a frame touched, for DB.onCommit
}

// maxKeptRecords bounds the records a decoder keeps room for.
const maxKeptRecords = 4096

// records returns the records of a sealed frame, checksums checked; its
// link is the leader's file's, not this one's. They are valid until
// release.
func (d *frameDecoder) records(frame []byte) ([]record, error) {
	hl, n, sum, ok := sealedFrameHeader(frame)
	if !ok || n != int64(len(frame)-hl) || crcOf(frame[hl:]) != sum {
		return nil, fmt.Errorf("a replicated frame is damaged (a header or checksum of %d bytes does not match)", len(frame))
	}
	d.src.b = frame[hl:]
	rr := recordReader{r: &d.src, end: n, borrow: true, args: d.args[:0]}
	defer func() { d.args = rr.args }()
	recs, inTx := d.recs[:0], false
	defer func() { d.recs = recs }()
	for {
		r, err := rr.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = framingError(r.op, inTx)
		}
		if err != nil {
			return nil, fmt.Errorf("a replicated frame is damaged (%d of %d bytes good): %v", rr.good+int64(hl), len(frame), err)
		}
		switch r.op {
		case opMulti:
			inTx = true
		case opExec:
			inTx = false
		default:
			recs = append(recs, r)
		}
	}
	if inTx {
		return nil, errors.New("a replicated frame is damaged: a transaction does not end in it")
	}
	return recs, nil
}

// release drops what points into the last frame decoded.
func (d *frameDecoder) release() {
	clear(d.recs)
	clear(d.args)
	d.src.b = nil
	if cap(d.recs) > maxKeptRecords {
		d.recs = nil
	}
	d.recs = d.recs[:0]
}

// sealedFrameHeader returns the header length, body length and body
// checksum of the frame at the start of b, with or without a link.
func sealedFrameHeader(b []byte) (hl int, n int64, sum uint32, ok bool) {
	switch {
	case len(b) >= frameHeaderLen && b[0] == frameMark:
		n, sum, ok = parseFrameHeader((*[frameHeaderLen]byte)(b[:frameHeaderLen]))
		return frameHeaderLen, n, sum, ok
	case len(b) >= oldFrameHeaderLen && b[0] == oldFrameMark:
		n, sum, ok = parseOldFrameHeader((*[oldFrameHeaderLen]byte)(b[:oldFrameHeaderLen]))
		return oldFrameHeaderLen, n, sum, ok
	}
	return 0, 0, 0, false
}

// keepTouched keeps touched's room for the next frame, its keys dropped.
func (d *frameDecoder) keepTouched(touched []KeyRef) {
	clear(touched)
	if cap(touched) > maxKeptRecords {
		touched = nil
	}
	d.touched = touched[:0]
}
