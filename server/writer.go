package server

import (
	"github.com/tidwall/redcon"
)

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
