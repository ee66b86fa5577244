package server

import (
	"testing"

	"github.com/qlessd/qlessd/store"
)

func woken(w *waiter) bool {
	select {
	case <-w.wake:
		return true
	default:
		return false
	}
}

func TestWaitersWakeInOrderAndNoteMissedSignals(t *testing.T) {
	ws := newWaiters()
	k := store.KeyRef{DB: 0, Key: "k"}
	mk := func(active bool) *waiter {
		w := &waiter{keys: []store.KeyRef{k}, wake: make(chan struct{}, 1), active: active}
		ws.add(w)
		return w
	}
	a, b := mk(false), mk(false)
	ws.signal([]store.KeyRef{k})
	if !woken(a) || woken(b) {
		t.Fatal("the longest-waiting client is woken, and only it")
	}
	// While a retries, a signal goes to b and a learns it missed one.
	ws.setActive(a, true)
	ws.signal([]store.KeyRef{k})
	if !woken(b) {
		t.Fatal("signal did not pass a retrying waiter")
	}
	if !ws.setActive(a, false) {
		t.Fatal("a retrying waiter was not told of the change it missed")
	}
	if ws.setActive(a, false) {
		t.Fatal("missed is reported once")
	}
	// A lone retrying waiter must not lose the signal either.
	ws.remove(b)
	ws.setActive(a, true)
	ws.signal([]store.KeyRef{k})
	if woken(a) || !ws.setActive(a, false) {
		t.Fatal("lone retrying waiter lost a signal")
	}
	// passOn hands a wake-up to the next in line.
	c := mk(false)
	ws.passOn(a)
	if !woken(c) || woken(a) {
		t.Fatal("passOn did not wake the next waiter")
	}
	ws.remove(a)
	ws.remove(c)
	if ws.blocked() != 0 || len(ws.byKey) != 0 {
		t.Fatalf("left behind: %d %v", ws.blocked(), ws.byKey)
	}
}
