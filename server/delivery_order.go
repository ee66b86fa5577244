package server

import (
	"sync"

	"github.com/qlessd/qlessd/commands"
)

// deliveryQueue hands published messages to subscribers in commit order
// without holding a lock while a write waits for its fsync: with appendfsync
// always a write transaction's messages may only go out once the commit is on
// disk, and a lock held across that wait would stop the next publishing
// transaction inside the store's write lock, so every write would pay a
// whole fsync of its own. A transaction takes its place in the queue while it
// still holds the write lock, and its messages leave when it and everything
// ahead of it have finished.
type deliveryQueue struct {
	mu      sync.Mutex
	done    *sync.Cond // a place was delivered or dropped
	pending []*delivery
	deliver func([]commands.Message) // called with mu held, in order
}

type delivery struct {
	msgs     []commands.Message
	ready    bool // its transaction has finished
	drop     bool // its transaction failed: the messages are not sent
	finished bool // sent or dropped
}

func newDeliveryQueue(deliver func([]commands.Message)) *deliveryQueue {
	q := &deliveryQueue{deliver: deliver}
	q.done = sync.NewCond(&q.mu)
	return q
}

// reserve takes the next place in delivery order for msgs.
func (q *deliveryQueue) reserve(msgs []commands.Message) *delivery {
	d := &delivery{msgs: msgs}
	q.mu.Lock()
	q.pending = append(q.pending, d)
	q.mu.Unlock()
	return d
}

// finish marks d's transaction finished (ok false: failed, send nothing),
// delivers every finished place at the head of the queue, and returns once d
// itself has gone, so a publisher's reply follows its messages.
func (q *deliveryQueue) finish(d *delivery, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	d.ready, d.drop = true, !ok
	n := 0
	for _, h := range q.pending {
		if !h.ready {
			break
		}
		if !h.drop {
			q.deliver(h.msgs)
		}
		h.finished = true
		n++
	}
	if n > 0 {
		clear(q.pending[:n])
		q.pending = q.pending[n:]
		q.done.Broadcast()
	}
	for !d.finished {
		q.done.Wait()
	}
}
