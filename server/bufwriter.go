package server

import (
	"sync"

	"github.com/qlessd/qlessd/resp"
	"github.com/tidwall/redcon"
)

// bufWriter collects a reply as RESP bytes to be sent later.
type bufWriter struct {
	b []byte
	// owed are the hand-backs of replies in b (see undelivered.go).
	owed []func()
	// r3: the connection speaks RESP3 (HELLO 3); the writer spells maps,
	// sets, doubles and nulls in it. Set per command from the session.
	r3 bool
}

// replyBufs recycles the buffers write commands reply into until their
// transaction commits: a popped job's reply is about a kilobyte, allocated
// anew for every command before.
var replyBufs = sync.Pool{New: func() any { return new(bufWriter) }}

// release returns w to replyBufs; w.b must no longer be referenced.
func (w *bufWriter) release() {
	if cap(w.b) > 64<<10 {
		return
	}
	w.b, w.owed, w.r3 = w.b[:0], nil, false
	replyBufs.Put(w)
}

func (w *bufWriter) WriteError(msg string)    { w.b = redcon.AppendError(w.b, msg) }
func (w *bufWriter) WriteStatus(s string)     { w.b = redcon.AppendString(w.b, s) }
func (w *bufWriter) WriteBulk(b []byte)       { w.b = redcon.AppendBulk(w.b, b) }
func (w *bufWriter) WriteBulkString(s string) { w.b = redcon.AppendBulkString(w.b, s) }
func (w *bufWriter) WriteInt(n int64)         { w.b = redcon.AppendInt(w.b, n) }
func (w *bufWriter) WriteArray(n int)         { w.b = redcon.AppendArray(w.b, n) }
func (w *bufWriter) WriteRaw(b []byte)        { w.b = append(w.b, b...) }
func (w *bufWriter) SetResp3(on bool)         { w.r3 = on }

func (w *bufWriter) WriteNull() {
	if w.r3 {
		w.b = append(w.b, resp3Null...)
		return
	}
	w.b = redcon.AppendNull(w.b)
}

func (w *bufWriter) WriteNullArray() {
	if w.r3 {
		w.b = append(w.b, resp3Null...)
		return
	}
	w.b = append(w.b, nullArray...)
}

func (w *bufWriter) WriteMap(n int) {
	if w.r3 {
		w.b = resp.AppendAggregate(w.b, '%', n)
		return
	}
	w.b = redcon.AppendArray(w.b, 2*n)
}

func (w *bufWriter) WriteSet(n int) {
	if w.r3 {
		w.b = resp.AppendAggregate(w.b, '~', n)
		return
	}
	w.b = redcon.AppendArray(w.b, n)
}

func (w *bufWriter) WriteDouble(f float64) { w.b = resp.AppendDouble(w.b, f, w.r3) }

func (w *bufWriter) WriteBool(b bool) {
	switch {
	case w.r3 && b:
		w.b = append(w.b, "#t\r\n"...)
	case w.r3:
		w.b = append(w.b, "#f\r\n"...)
	default:
		w.b = redcon.AppendInt(w.b, boolInt(b))
	}
}

func (w *bufWriter) WriteVerbatim(s string) { w.b = resp.AppendVerbatim(w.b, "txt", s, w.r3) }
func (w *bufWriter) WriteVerbatimExt(ext, s string) {
	w.b = resp.AppendVerbatim(w.b, ext, s, w.r3)
}
func (w *bufWriter) WriteBigNumber(s string) { w.b = resp.AppendBigNumber(w.b, s, w.r3) }

func (w *bufWriter) WritePairs(n int) {
	if w.r3 {
		w.b = redcon.AppendArray(w.b, n)
		return
	}
	w.b = redcon.AppendArray(w.b, 2*n)
}

func (w *bufWriter) WritePair() {
	if w.r3 {
		w.b = append(w.b, "*2\r\n"...)
	}
}

func (w *bufWriter) WritePush(n int) {
	if w.r3 {
		w.b = resp.AppendAggregate(w.b, '>', n)
		return
	}
	w.b = redcon.AppendArray(w.b, n)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
