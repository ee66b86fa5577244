package server

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// A close runs once, every caller gets its error, and from its start no
// command enters.
func TestLifecycleClosesOnce(t *testing.T) {
	var l lifecycle
	l.init()
	if l.stopping() || !l.enter() {
		t.Fatal("a fresh lifecycle refused a command")
	}
	l.leave()
	want := errors.New("store closed badly")
	runs := 0
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = l.closeOnce(func() error {
				l.begin()
				runs++
				return want
			})
		}()
	}
	wg.Wait()
	if runs != 1 {
		t.Fatalf("the close ran %d times", runs)
	}
	for i, err := range errs {
		if err != want {
			t.Errorf("caller %d got %v", i, err)
		}
	}
	select {
	case <-l.shutdown:
	default:
		t.Fatal("shutdown still open after the close began")
	}
	if !l.stopping() || l.enter() {
		t.Fatal("a command entered a closing lifecycle")
	}
}

// settle waits for the commands in flight, and not at all once abandon
// was asked.
func TestLifecycleSettle(t *testing.T) {
	var l lifecycle
	l.init()
	if !l.settle(time.Minute) {
		t.Fatal("nothing in flight, yet settle did not finish")
	}
	if !l.enter() {
		t.Fatal("refused")
	}
	if l.settle(10 * time.Millisecond) {
		t.Fatal("settle finished with a command in flight")
	}
	left := make(chan bool)
	go func() { left <- l.settle(time.Minute) }()
	l.leave()
	if !<-left {
		t.Fatal("settle gave up on a command that left")
	}
	l.abandon.Store(true)
	if l.settle(time.Minute) {
		t.Fatal("settle waited although abandon was asked")
	}
}

// The listeners' goroutines report to served and are held by drained,
// both made afresh by starting.
func TestLifecycleStarting(t *testing.T) {
	var l lifecycle
	l.init()
	drained := l.starting()
	if drained != l.drained {
		t.Fatal("starting returned another channel than the one held")
	}
	l.accepted()
	select {
	case <-l.served:
	default:
		t.Fatal("accepted did not report")
	}
}
