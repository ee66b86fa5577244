package server

import (
	"testing"

	"github.com/qlessd/qlessd/resp"
)

// BenchmarkBufWriterResp2 writes a typical RESP2 reply (an MGET of a hit
// and a miss, then a count) as process does for each command: the protocol
// is set from the session, then the handler writes through resp.Writer.
func BenchmarkBufWriterResp2(b *testing.B) {
	var bw bufWriter
	var w resp.Writer = &bw
	var rw replyWriter = &bw
	for b.Loop() {
		bw.b = bw.b[:0]
		rw.SetResp3(false)
		w.WriteArray(2)
		w.WriteBulkString("value")
		w.WriteNull()
		w.WriteInt(42)
	}
}
