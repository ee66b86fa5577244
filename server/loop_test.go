package server

import (
	"errors"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/store"
)

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

// A batch caught by a change of leader tells a write's client it may or
// may not have been applied, and a read's that it changed nothing; a read
// gate's refusal leaves the replies to a replica's connection be.
func TestLoopBatchFailedRepliesByKind(t *testing.T) {
	leader, replica := &loopConn{sess: &session{}}, &loopConn{sess: &session{replica: true}}
	var batch loopBatch
	add := func(lc *loopConn, reply string, wrote bool) {
		start := len(lc.out.b)
		lc.out.b = append(lc.out.b, reply...)
		batch.spans = append(batch.spans, replySpan{lc, start, len(lc.out.b), wrote})
	}
	add(leader, "+OK\r\n", true)
	add(leader, "$1\r\nv\r\n", false)
	caught := &store.WriteError{Err: &store.ReplicationError{Err: errors.New("lost")}}
	batch.replaceReplies(failedReplies(caught, false))
	want := "-" + (&store.ReplicationError{}).RedisReply() + "\r\n-" + (&store.ReplicationError{}).ReadReply() + "\r\n"
	if got := string(leader.out.b); got != want {
		t.Errorf("caught by a change of leader: %q, want %q", got, want)
	}

	leader.out.b, batch.spans = nil, nil
	add(leader, "$1\r\nv\r\n", false)
	add(replica, "$1\r\nv\r\n", false)
	batch.replaceReplies(failedReplies(errors.New("refused"), true))
	if got := string(replica.out.b); got != "$1\r\nv\r\n" {
		t.Errorf("a replica's read after a gate's refusal: %q", got)
	}
	if got := string(leader.out.b); !strings.HasPrefix(got, "-") {
		t.Errorf("a leader's read after a gate's refusal: %q", got)
	}
}
