package scripts

import (
	"context"
	"testing"
)

func TestKillSwitchHasNoChannelUntilTripped(t *testing.T) {
	k := &killSwitch{}
	if k.Done() != nil || k.Err() != nil {
		t.Fatalf("untripped switch: done %v, err %v", k.Done(), k.Err())
	}
	// A child context, as gopher-lua makes for a coroutine, is not linked.
	child, cancel := context.WithCancel(k)
	defer cancel()
	k.trip()
	select {
	case <-k.Done():
	default:
		t.Fatal("tripped switch: Done not closed")
	}
	if k.Err() != context.Canceled {
		t.Fatalf("tripped switch: err %v", k.Err())
	}
	if child.Err() != nil {
		t.Fatal("a child of the switch was cancelled: then installCoroutine's hand-over would be needless")
	}
}
