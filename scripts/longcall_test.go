package scripts

import (
	"strings"
	"testing"
	"time"
)

type asideCount int

func (a *asideCount) StepAside() { *a++ }

// pollUntilTracked polls c until the engine reports it as running.
func pollUntilTracked(t *testing.T, e *Engine, c *GoCall) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		if c.Poll() {
			t.Fatal("killed before anyone asked")
		}
		if done, _ := e.Busy(); done != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a long call in Go was never tracked")
		}
	}
}

// A call in Go is tracked once it has run a while, steps aside once past
// the limit, and SCRIPT KILL stops it until it writes.
func TestGoCallKilledBeforeWriting(t *testing.T) {
	e := NewEngine(Options{TimeLimit: 10 * time.Millisecond})
	var aside asideCount
	c := e.WatchGo(&aside, time.Time{})
	pollUntilTracked(t, e, &c)
	for deadline := time.Now().Add(time.Minute); aside == 0; {
		if c.Poll() || time.Now().After(deadline) {
			t.Fatal("the call did not step aside once past the limit")
		}
	}
	killed := make(chan string)
	go func() { killed <- e.Kill() }() // waits for the limit to pass
	for deadline := time.Now().Add(time.Minute); !c.Poll(); {
		if time.Now().After(deadline) {
			t.Fatal("SCRIPT KILL did not stop the call")
		}
	}
	if msg := <-killed; msg != "" {
		t.Fatalf("SCRIPT KILL: %q", msg)
	}
	if aside != 1 {
		t.Errorf("stepped aside %d times, want 1", aside)
	}
	if c.Write() {
		t.Error("a killed call was let write")
	}
	c.End()
	if done, _ := e.Busy(); done != nil {
		t.Error("an ended call is still tracked")
	}
}

// Once it has written, SCRIPT KILL answers UNKILLABLE, also when the call
// wrote before it was tracked.
func TestGoCallUnkillableAfterWriting(t *testing.T) {
	e := NewEngine(Options{TimeLimit: 10 * time.Millisecond})
	c := e.WatchGo(nil, time.Time{})
	if !c.Write() {
		t.Fatal("Write refused")
	}
	pollUntilTracked(t, e, &c)
	if msg := e.Kill(); !strings.HasPrefix(msg, "UNKILLABLE ") {
		t.Fatalf("SCRIPT KILL: %q", msg)
	}
	if c.Poll() {
		t.Error("an unkillable call was killed")
	}
	c.End()
}

// BenchmarkGoCallShort is what watching costs a short call in Go: the
// start, a few loop points, the write, the end.
func BenchmarkGoCallShort(b *testing.B) {
	e := NewEngine(Options{TimeLimit: 5 * time.Second})
	start := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		c := e.WatchGo(nil, start)
		for range 8 {
			c.Poll()
		}
		c.Write()
		c.End()
	}
}
