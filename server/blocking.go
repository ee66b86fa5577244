package server

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// waiters tracks clients blocked on keys (BLPOP, BZPOPMIN, ...). As in
// Redis, blocked clients are served synchronously: the write transaction
// that touched their keys re-runs their commands before it commits, in
// arrival order, so no other command can run in between. A client waits in
// its own goroutine for the reply handed over after that commit, or for its
// timeout, disconnect or shutdown. mu decides which comes first: a waiter is
// either served once or leaves, never both.
type waiters struct {
	mu    sync.Mutex
	byKey map[store.KeyRef][]*waiter
	count int
}

type waitState uint8

const (
	waiting waitState = iota
	served            // removed by a serving transaction; its reply is on done
	left              // removed by its own goroutine: timed out or gone
)

type waiter struct {
	sess  *session
	cmd   *commands.Cmd
	args  [][]byte
	db    int
	keys  []store.KeyRef // distinct
	done  chan []byte    // buffered 1: the reply of the run that served it
	state waitState      // guarded by waiters.mu
	// undelivered is the serving run's commands.Ctx.Undelivered, set
	// before its reply is sent on done.
	undelivered func()

	since     time.Time // when the command first asked to wait
	anyChange []string  // BlockRequest.AnyChange
	// recheckAt is when to run the command again while it waits (unix
	// nanoseconds, 0: never); a run that moves it earlier signals nudge.
	recheckAt atomic.Int64
	nudge     chan struct{} // buffered 1
}

// handoff is a reply owed to a served waiter, given to it once the
// transaction that served it has committed.
type handoff struct {
	w     *waiter
	reply []byte
}

func newWaiters() *waiters { return &waiters{byKey: map[store.KeyRef][]*waiter{}} }

// newWaiter makes the waiter of a command that has waited for waited
// already (a run again by the clock registers anew).
func newWaiter(sess *session, cmd *commands.Cmd, args [][]byte, req *commands.BlockRequest, waited time.Duration) *waiter {
	w := &waiter{sess: sess, cmd: cmd, args: args, db: req.DB, done: make(chan []byte, 1),
		since: time.Now().Add(-waited), anyChange: req.AnyChange, nudge: make(chan struct{}, 1)}
	w.setRecheck(req.Recheck)
	seen := map[string]bool{}
	for _, k := range req.Keys {
		if !seen[k] {
			seen[k] = true
			w.keys = append(w.keys, store.KeyRef{DB: req.DB, Key: k})
		}
	}
	return w
}

// setRecheck moves w's next run by the clock to d from now when that is
// sooner than the one set (or none is), and wakes its wait to see it.
func (w *waiter) setRecheck(d time.Duration) {
	if d <= 0 {
		return
	}
	at := time.Now().Add(d).UnixNano()
	for {
		cur := w.recheckAt.Load()
		if cur != 0 && cur <= at {
			return
		}
		if w.recheckAt.CompareAndSwap(cur, at) {
			break
		}
	}
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// add enqueues w at the back of each of its keys' queues.
func (ws *waiters) add(w *waiter) {
	ws.mu.Lock()
	for _, k := range w.keys {
		ws.byKey[k] = append(ws.byKey[k], w)
	}
	ws.count++
	ws.mu.Unlock()
}

// unlinkLocked takes w out of every queue.
func (ws *waiters) unlinkLocked(w *waiter) {
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
}

// leave takes w out of the queues unless a transaction has served it
// already, in which case it reports false and the reply is (or will be,
// once that transaction commits) on w.done.
func (ws *waiters) leave(w *waiter) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w.state != waiting {
		return w.state == left
	}
	ws.unlinkLocked(w)
	w.state = left
	return true
}

// hasWaiters reports whether anyone waits on k.
func (ws *waiters) hasWaiters(k store.KeyRef) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.byKey[k]) > 0
}

// serveKey offers k to its waiters in arrival order. ready reports whether
// k may still serve a waiter that needs it to exist (unless it is one of the
// waiter's AnyChange keys); run re-runs a waiter's command and
// returns its reply, or ok false when it must keep waiting. Served waiters
// are appended to *out. Holding mu
// through the runs keeps a waiter from leaving half way: its goroutine's
// leave waits and then finds it served.
func (ws *waiters) serveKey(k store.KeyRef, ready func() bool, run func(w *waiter) (reply []byte, ok bool), out *[]handoff) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	queue := append([]*waiter(nil), ws.byKey[k]...)
	// Whether k exists is looked up again only after a served run, the
	// only kind that may have changed it.
	known, exists := false, false
	for _, w := range queue {
		if w.state != waiting {
			continue
		}
		if !slices.Contains(w.anyChange, k.Key) {
			if !known {
				known, exists = true, ready()
			}
			if !exists {
				continue
			}
		}
		reply, ok := run(w)
		if !ok {
			continue
		}
		known = false
		ws.unlinkLocked(w)
		w.state = served
		*out = append(*out, handoff{w, reply})
	}
}

// deliver gives served waiters their replies once their transaction is
// over; failed replaces them all when it did not commit.
func deliver(hs []handoff, failed []byte) {
	for _, h := range hs {
		if failed != nil {
			h.w.undelivered = nil // nothing was handed over
			h.w.done <- failed
		} else {
			h.w.done <- h.reply
		}
	}
}

// blocked returns how many clients are waiting.
func (ws *waiters) blocked() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.count
}
