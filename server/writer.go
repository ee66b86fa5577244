package server

import (
	"github.com/qlessd/qlessd/resp"
)

// replyWriter is where a command's reply goes: the connection's buffer of
// replies to send, or a buffer queued on a subscriber's outbox.
type replyWriter interface {
	resp.Writer
	resp.ProtoSwitcher
	WriteRaw(b []byte)
}

var (
	nullArray = []byte("*-1\r\n")
	resp3Null = []byte("_\r\n")
)

// discard swallows replies (CLIENT REPLY OFF and SKIP).
type discard struct{}

func (discard) WriteError(string)               {}
func (discard) WriteStatus(string)              {}
func (discard) WriteBulk([]byte)                {}
func (discard) WriteBulkString(string)          {}
func (discard) WriteInt(int64)                  {}
func (discard) WriteNull()                      {}
func (discard) WriteNullArray()                 {}
func (discard) WriteArray(int)                  {}
func (discard) WriteRaw([]byte)                 {}
func (discard) WriteMap(int)                    {}
func (discard) WriteSet(int)                    {}
func (discard) WriteDouble(float64)             {}
func (discard) WriteBool(bool)                  {}
func (discard) WriteVerbatim(string)            {}
func (discard) SetResp3(bool)                   {}
func (discard) WritePairs(int)                  {}
func (discard) WritePair()                      {}
func (discard) WritePush(int)                   {}
func (discard) WriteVerbatimExt(string, string) {}
func (discard) WriteBigNumber(string)           {}
