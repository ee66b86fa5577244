package server

import (
	"testing"
	"time"
)

func TestGateDrainWaitsForEarlierCommandsOnly(t *testing.T) {
	var g scriptGate
	early := g.enter()
	script := g.enter()
	drained := make(chan struct{})
	go func() {
		g.drain(&script)
		close(drained)
	}()
	for g.epoch.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	late := g.enter() // after the announcement: not waited for
	select {
	case <-drained:
		t.Fatal("the script went ahead of a command that entered before it")
	case <-time.After(20 * time.Millisecond):
	}
	early.leave()
	select {
	case <-drained:
	case <-time.After(time.Minute):
		t.Fatal("the drain did not end once the earlier command left")
	}
	late.leave()
	late.leave() // a second leave does nothing
	if a, b := g.inflight[0].Load(), g.inflight[1].Load(); a != 0 || b != 0 {
		t.Fatalf("counts left over: %d %d", a, b)
	}
}
