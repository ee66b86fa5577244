package server

import (
	"runtime"
	"slices"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

func msg(p string) []commands.Message { return []commands.Message{{Channel: "c", Payload: p}} }

// Places finished out of order are delivered in reservation order, failed
// transactions send nothing, and finish returns only once its own messages
// have gone.
func TestDeliveryQueueOrder(t *testing.T) {
	var got []string
	q := newDeliveryQueue(func(ms []commands.Message) {
		for _, m := range ms {
			got = append(got, m.Payload)
		}
	})
	a, b, c := q.reserve(msg("a")), q.reserve(msg("b")), q.reserve(msg("c"))
	cDone := make(chan struct{})
	go func() { q.finish(c, true); close(cDone) }()
	bDone := make(chan struct{})
	go func() { q.finish(b, false); close(bDone) }()
	// Neither can return before a, ahead of them, has finished.
	q.mu.Lock()
	for !c.ready || !b.ready {
		q.mu.Unlock()
		runtime.Gosched()
		q.mu.Lock()
	}
	if len(got) != 0 || c.finished || b.finished {
		t.Fatalf("delivered %v before the head finished", got)
	}
	q.mu.Unlock()
	select {
	case <-cDone:
		t.Fatal("c's finish returned before its messages went out")
	default:
	}
	q.finish(a, true)
	<-cDone
	<-bDone
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("delivered %v, want [a c]", got)
	}
	if len(q.pending) != 0 {
		t.Errorf("%d places left", len(q.pending))
	}
	q.finish(q.reserve(msg("d")), true)
	if !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Errorf("delivered %v, want [a c d]", got)
	}
}
