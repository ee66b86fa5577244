package server

import (
	"net"
	"sync"
	"time"
)

// OutputLimit is a client-output-buffer-limit class: a client is dropped
// when its pending output exceeds Hard bytes, or stays above Soft bytes for
// SoftFor. Zero disables a bound.
type OutputLimit struct {
	Hard, Soft int
	SoftFor    time.Duration
}

// DefaultPubSubLimit is Redis's "client-output-buffer-limit pubsub 32mb 8mb 60".
var DefaultPubSubLimit = OutputLimit{Hard: 32 << 20, Soft: 8 << 20, SoftFor: 60 * time.Second}

// outbox is a detached connection's outbound queue. Its own goroutine
// writes it to the socket, so publishers only append and never wait for a
// slow reader. While a command of the connection runs (held), messages are
// parked so they follow that command's reply, as on single-threaded Redis.
type outbox struct {
	mu        sync.Mutex
	buf       []byte // ready to write
	parked    []byte // messages that arrived during a held command
	inflight  int    // bytes the writer is sending now
	held      bool
	closed    bool
	drain     bool // close the socket once everything is written
	overSince time.Time
	limit     OutputLimit
	wake      chan struct{}
	overflow  func(pending int) // called once, without the lock, when the limit is passed
}

func newOutbox(limit OutputLimit, overflow func(int)) *outbox {
	return &outbox{limit: limit, wake: make(chan struct{}, 1), overflow: overflow, held: true}
}

func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// message queues a pub/sub message. It reports false when the connection is
// gone or has just been dropped for passing the limit.
func (o *outbox) message(b []byte) bool {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return false
	}
	if o.held {
		o.parked = append(o.parked, b...)
	} else {
		o.buf = append(o.buf, b...)
	}
	pending := len(o.buf) + len(o.parked) + o.inflight
	over := o.overLimit(pending)
	if over {
		o.closed = true
	}
	o.mu.Unlock()
	if over {
		o.signal()
		if o.overflow != nil {
			o.overflow(pending)
		}
		return false
	}
	o.signal()
	return true
}

// overLimit applies the hard and soft limits; mu is held.
func (o *outbox) overLimit(pending int) bool {
	if o.limit.Hard > 0 && pending > o.limit.Hard {
		return true
	}
	if o.limit.Soft > 0 && pending > o.limit.Soft {
		now := time.Now()
		if o.overSince.IsZero() {
			o.overSince = now
			// Look again when the grace period ends, even if no message
			// comes to trigger a check.
			time.AfterFunc(o.limit.SoftFor, o.recheck)
		}
		return now.Sub(o.overSince) >= o.limit.SoftFor
	}
	o.overSince = time.Time{}
	return false
}

// recheck applies the soft limit once its grace period has passed.
func (o *outbox) recheck() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	pending := len(o.buf) + len(o.parked) + o.inflight
	over := false
	if pending > o.limit.Soft {
		over = o.overLimit(pending)
	} else {
		o.overSince = time.Time{}
	}
	if over {
		o.closed = true
	}
	o.mu.Unlock()
	if over {
		o.signal()
		if o.overflow != nil {
			o.overflow(pending)
		}
	}
}

// hold parks messages until release: a command of this connection runs.
func (o *outbox) hold() {
	o.mu.Lock()
	o.held = true
	o.mu.Unlock()
}

// release queues a command's reply, then the messages that arrived while it
// ran.
func (o *outbox) release(reply []byte) {
	o.mu.Lock()
	o.buf = append(o.buf, reply...)
	o.buf = append(o.buf, o.parked...)
	o.parked = nil
	o.held = false
	o.mu.Unlock()
	o.signal()
}

// finish stops the queue; with drain, what is queued is still written
// before the socket closes (QUIT), otherwise it is dropped.
func (o *outbox) finish(drain bool) {
	o.mu.Lock()
	o.closed = true
	o.drain = drain
	o.mu.Unlock()
	o.signal()
}

// pending returns the bytes waiting to be written.
func (o *outbox) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf) + len(o.parked) + o.inflight
}

// run writes the queue to conn until finish or a write error, then closes
// conn so the reading side ends too.
func (o *outbox) run(conn net.Conn) {
	defer conn.Close()
	var spare []byte
	for {
		o.mu.Lock()
		for len(o.buf) == 0 && !o.closed {
			o.mu.Unlock()
			<-o.wake
			o.mu.Lock()
		}
		if o.closed && (!o.drain || len(o.buf) == 0) {
			o.buf = nil
			o.mu.Unlock()
			return
		}
		out := o.buf
		o.buf = spare[:0]
		o.inflight = len(out)
		o.mu.Unlock()
		_, err := conn.Write(out)
		o.mu.Lock()
		o.inflight = 0
		o.mu.Unlock()
		if err != nil {
			o.finish(false)
			return
		}
		if cap(out) <= 64<<10 {
			spare = out
		} else {
			spare = nil
		}
	}
}
