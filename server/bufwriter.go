package server

import (
	"sync"

	"github.com/tidwall/redcon"
)

// bufWriter collects a reply as RESP bytes to be sent later.
type bufWriter struct {
	b []byte
	// owed are the hand-backs of replies in b (see undelivered.go).
	owed []func()
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
	w.b, w.owed = w.b[:0], nil
	replyBufs.Put(w)
}

func (w *bufWriter) WriteError(msg string)    { w.b = redcon.AppendError(w.b, msg) }
func (w *bufWriter) WriteStatus(s string)     { w.b = redcon.AppendString(w.b, s) }
func (w *bufWriter) WriteBulk(b []byte)       { w.b = redcon.AppendBulk(w.b, b) }
func (w *bufWriter) WriteBulkString(s string) { w.b = redcon.AppendBulkString(w.b, s) }
func (w *bufWriter) WriteInt(n int64)         { w.b = redcon.AppendInt(w.b, n) }
func (w *bufWriter) WriteNull()               { w.b = redcon.AppendNull(w.b) }
func (w *bufWriter) WriteNullArray()          { w.b = append(w.b, nullArray...) }
func (w *bufWriter) WriteArray(n int)         { w.b = redcon.AppendArray(w.b, n) }
func (w *bufWriter) WriteRaw(b []byte)        { w.b = append(w.b, b...) }
