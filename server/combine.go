package server

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// combiner runs the writes of concurrent clients together: the first
// client to arrive while no batch is running becomes the leader and runs
// every write queued so far, one after another, in one store transaction,
// so they share one lock hand-over, one data-file write and (with
// appendfsync always) one fsync. Each command still runs alone under the
// store lock, in arrival order, and its client hears back only after the
// whole batch has committed and is in the data file. The next batch runs
// while that write happens.
type combiner struct {
	mu    sync.Mutex
	busy  bool // a leader is running a batch
	queue []*writeReq
}

// writeReq is one command's write transaction body and what became of it.
type writeReq struct {
	fn    func(tx *store.Tx) []commands.Message
	place *delivery
	hs    []handoff
	err   error
	panic any
	wrote bool          // the command changed a key
	lead  bool          // woken to lead the next batch, not with a result
	wake  chan struct{} // buffered: the waker never blocks
}

var writeReqs = sync.Pool{New: func() any { return &writeReq{wake: make(chan struct{}, 1)} }}

// update runs fn in a write transaction, then serves the clients blocked on
// the keys it touched, in the same transaction (see serveBlocked). Watchers
// of the keys it touched are told before the transaction lets go of the
// store, so an EXEC can never run between this commit and its WATCH being
// broken. The messages published and the replies of served clients are
// delivered after the commit (and its fsync), messages in commit order.
func (s *Server) update(fn func(tx *store.Tx) []commands.Message) error {
	r := writeReqs.Get().(*writeReq)
	r.fn = fn
	c := &s.comb
	c.mu.Lock()
	c.queue = append(c.queue, r)
	lead := !c.busy
	c.busy = true
	c.mu.Unlock()
	if !lead {
		<-r.wake
		lead = r.lead
	}
	if lead {
		s.lead()
	}
	err, p := r.err, r.panic
	if err != nil && !r.wrote {
		err = asRead(err)
	}
	*r = writeReq{wake: r.wake}
	writeReqs.Put(r)
	if p != nil {
		panic(p) // for process to report, on the connection that caused it
	}
	return err
}

// lead runs the queued writes as one batch, hands the lead to the first
// write that queued meanwhile, and wakes the batch's clients once the batch
// is in the data file. The next batch runs while this one is written.
func (s *Server) lead() {
	c := &s.comb
	c.mu.Lock()
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()

	done, err := s.db.UpdateAsync(func(tx *store.Tx) error {
		for _, r := range batch {
			s.runWrite(tx, r)
		}
		return nil
	})

	c.mu.Lock()
	handed := len(c.queue) > 0
	if handed {
		next := c.queue[0]
		next.lead = true
		next.wake <- struct{}{}
	} else {
		c.busy = false
	}
	c.mu.Unlock()
	if handed {
		// The next leader waits in this P's run queue behind us; let it
		// run now, while we write and wake, or the store idles meanwhile
		// (about 40 µs per batch at 50 clients, as long as a batch runs).
		runtime.Gosched()
	}

	if err == nil {
		err = done.Wait()
	}
	if err == nil && !done.Wrote() {
		err = s.gateRead(nil)
	}
	s.settle(batch, err)
	for _, r := range batch[1:] {
		r.wake <- struct{}{}
	}
}

// runWrite runs one command of a batch. A panic stops that command only:
// what it wrote before panicking commits with the batch, as a lone command's
// writes did, and the panic is raised again on its own connection.
func (s *Server) runWrite(tx *store.Tx, r *writeReq) {
	start := len(tx.Touched())
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Logger.Error("write panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			r.panic = p
		}
	}()
	tx.Tick()
	msgs := r.fn(tx)
	msgs = append(msgs, s.serveBlocked(tx, start, &r.hs)...)
	r.wrote = len(tx.Touched()) > start
	s.watches.touch(tx.Touched()[start:])
	if len(msgs) > 0 {
		r.place = s.pubsub.order.reserve(msgs)
	}
}

// settle finishes a batch of writes once it is in the data file (or failed
// to get there): what they published goes out in commit order, and the
// clients they served from a blocking wait get their replies.
func (s *Server) settle(batch []*writeReq, err error) {
	for _, r := range batch {
		if r.place != nil {
			s.pubsub.order.finish(r.place, err == nil)
		}
		r.err = err
		if err != nil {
			deliver(r.hs, misconfReply(err))
		} else {
			deliver(r.hs, nil)
		}
	}
}
