package server

import "testing"

// A batch that failed to reach the data file has each of its writes'
// replies replaced, and nothing else of the connections' output.
func TestLoopBatchReplacesOnlyTheWritesReplies(t *testing.T) {
	a, b := &loopConn{}, &loopConn{}
	a.out.b = []byte("+earlier\r\n")
	var batch loopBatch
	write := func(lc *loopConn, reply string) {
		start := len(lc.out.b)
		lc.out.b = append(lc.out.b, reply...)
		batch.spans = append(batch.spans, replySpan{lc, start, len(lc.out.b), true})
	}
	write(a, ":1\r\n")
	a.out.b = append(a.out.b, "$3\r\nget\r\n"...) // a read between two writes
	write(a, "+OK\r\n")
	write(b, ":7\r\n")
	b.out.b = append(b.out.b, "+PONG\r\n"...)
	batch.replaceReplies(func(replySpan) []byte { return []byte("-MISCONF x\r\n") })
	if got, want := string(a.out.b), "+earlier\r\n-MISCONF x\r\n$3\r\nget\r\n-MISCONF x\r\n"; got != want {
		t.Errorf("a: %q, want %q", got, want)
	}
	if got, want := string(b.out.b), "-MISCONF x\r\n+PONG\r\n"; got != want {
		t.Errorf("b: %q, want %q", got, want)
	}
}
