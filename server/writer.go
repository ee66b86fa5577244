package server

import (
	"github.com/qlessd/qlessd/resp"
	"github.com/tidwall/redcon"
)

// replyWriter is where a command's reply goes: redcon's buffered
// connection, or a buffer queued on a detached connection's outbox.
type replyWriter interface {
	resp.Writer
	WriteRaw(b []byte)
}

// connWriter streams replies into redcon's buffered connection writer.
type connWriter struct{ c redcon.Conn }

var nullArray = []byte("*-1\r\n")

func (w connWriter) WriteError(msg string)    { w.c.WriteError(msg) }
func (w connWriter) WriteStatus(s string)     { w.c.WriteString(s) }
func (w connWriter) WriteBulk(b []byte)       { w.c.WriteBulk(b) }
func (w connWriter) WriteBulkString(s string) { w.c.WriteBulkString(s) }
func (w connWriter) WriteInt(n int64)         { w.c.WriteInt64(n) }
func (w connWriter) WriteNull()               { w.c.WriteNull() }
func (w connWriter) WriteNullArray()          { w.c.WriteRaw(nullArray) }
func (w connWriter) WriteArray(n int)         { w.c.WriteArray(n) }
func (w connWriter) WriteRaw(b []byte)        { w.c.WriteRaw(b) }

// discard swallows replies (CLIENT REPLY OFF and SKIP).
type discard struct{}

func (discard) WriteError(string)      {}
func (discard) WriteStatus(string)     {}
func (discard) WriteBulk([]byte)       {}
func (discard) WriteBulkString(string) {}
func (discard) WriteInt(int64)         {}
func (discard) WriteNull()             {}
func (discard) WriteNullArray()        {}
func (discard) WriteArray(int)         {}
func (discard) WriteRaw([]byte)        {}
