package server

import "github.com/tidwall/redcon"

// bufWriter collects a reply as RESP bytes to be sent later.
type bufWriter struct{ b []byte }

func (w *bufWriter) WriteError(msg string)    { w.b = redcon.AppendError(w.b, msg) }
func (w *bufWriter) WriteStatus(s string)     { w.b = redcon.AppendString(w.b, s) }
func (w *bufWriter) WriteBulk(b []byte)       { w.b = redcon.AppendBulk(w.b, b) }
func (w *bufWriter) WriteBulkString(s string) { w.b = redcon.AppendBulkString(w.b, s) }
func (w *bufWriter) WriteInt(n int64)         { w.b = redcon.AppendInt(w.b, n) }
func (w *bufWriter) WriteNull()               { w.b = redcon.AppendNull(w.b) }
func (w *bufWriter) WriteNullArray()          { w.b = append(w.b, nullArray...) }
func (w *bufWriter) WriteArray(n int)         { w.b = redcon.AppendArray(w.b, n) }
func (w *bufWriter) WriteRaw(b []byte)        { w.b = append(w.b, b...) }
