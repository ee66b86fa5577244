package server

import (
	"sync"

	"github.com/qlessd/qlessd/store"
)

// waiters tracks clients blocked on keys (BLPOP, BZPOPMIN, ...). A client
// waits in its own goroutine without any store lock. When a write commits,
// the first waiter of each touched key, in arrival order, is woken to retry;
// whatever it does not take is passed on by its own commit touching the key
// again, or explicitly when it finds nothing.
type waiters struct {
	mu    sync.Mutex
	byKey map[store.KeyRef][]*waiter
	count int
}

type waiter struct {
	keys   []store.KeyRef
	wake   chan struct{} // buffered 1
	active bool          // retrying now: signals go to the next in line
	missed bool          // a key changed while active: look again
}

func newWaiters() *waiters { return &waiters{byKey: map[store.KeyRef][]*waiter{}} }

// add enqueues w at the back of each of its keys' queues.
func (ws *waiters) add(w *waiter) {
	ws.mu.Lock()
	for _, k := range w.keys {
		ws.byKey[k] = append(ws.byKey[k], w)
	}
	ws.count++
	ws.mu.Unlock()
}

// remove takes w out of every queue.
func (ws *waiters) remove(w *waiter) {
	ws.mu.Lock()
	for _, k := range w.keys {
		q := ws.byKey[k]
		for i, x := range q {
			if x == w {
				q = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		if len(q) == 0 {
			delete(ws.byKey, k)
		} else {
			ws.byKey[k] = q
		}
	}
	ws.count--
	ws.mu.Unlock()
}

// signal wakes the longest-waiting client of each touched key.
func (ws *waiters) signal(touched []store.KeyRef) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.count == 0 {
		return
	}
	for _, k := range touched {
		for _, w := range ws.byKey[k] {
			if w.active {
				w.missed = true
				continue
			}
			select {
			case w.wake <- struct{}{}:
			default:
			}
			break
		}
	}
}

// setActive marks w as retrying (or back to waiting). It reports whether
// one of w's keys changed while it was active, in which case a waiter going
// back to waiting must look again: that signal went past it.
func (ws *waiters) setActive(w *waiter, active bool) (missed bool) {
	ws.mu.Lock()
	missed = w.missed
	w.active, w.missed = active, false
	ws.mu.Unlock()
	return missed
}

// passOn wakes the next waiter on each of w's keys after w, used when w was
// woken but found nothing to take, or left without taking it.
func (ws *waiters) passOn(w *waiter) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, k := range w.keys {
		q := ws.byKey[k]
		for i, x := range q {
			if x == w && i+1 < len(q) {
				select {
				case q[i+1].wake <- struct{}{}:
				default:
				}
			}
		}
	}
}

// blocked returns how many clients are waiting.
func (ws *waiters) blocked() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.count
}
