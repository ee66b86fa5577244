package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// lifecycle carries the server from serving to stopped: Close runs once
// and every caller shares its result, commands in flight are counted so
// the close can let them finish, and the accepting goroutines are held
// (drained) until they have.
type lifecycle struct {
	closing  atomic.Bool
	abandon  atomic.Bool // stop without waiting for running commands
	once     sync.Once
	err      error
	shutdown chan struct{} // closed when the server starts to stop
	inflight sync.WaitGroup
	served   chan error    // the accepting goroutines (or loops) have returned: Start makes it
	drained  chan struct{} // closed once a shutdown has drained: see gatedListener
}

func (l *lifecycle) init() { l.shutdown = make(chan struct{}) }

// starting makes what Start's listeners report to and wait on; it returns
// the channel the listeners are held by until a close has drained.
func (l *lifecycle) starting() chan struct{} {
	l.served = make(chan error, 1)
	l.drained = make(chan struct{})
	return l.drained
}

// stopping reports whether a close has begun.
func (l *lifecycle) stopping() bool { return l.closing.Load() }

// enter counts a command about to run, unless a close has begun: then it
// must not run, and enter reports false. Each true is matched by a leave.
func (l *lifecycle) enter() bool {
	if l.closing.Load() {
		return false
	}
	l.inflight.Add(1)
	return true
}

func (l *lifecycle) leave() { l.inflight.Done() }

// closeOnce runs stop for the first caller; every caller gets its error.
func (l *lifecycle) closeOnce(stop func() error) error {
	l.once.Do(func() { l.err = stop() })
	return l.err
}

// begin refuses new commands and connections and wakes those waiting on
// the shutdown channel.
func (l *lifecycle) begin() {
	l.closing.Store(true)
	close(l.shutdown)
}

// settle waits up to limit for the commands in flight, unless abandon was
// asked; it reports whether they all finished.
func (l *lifecycle) settle(limit time.Duration) bool {
	waited := make(chan struct{})
	go func() { l.inflight.Wait(); close(waited) }()
	if l.abandon.Load() {
		return false
	}
	select {
	case <-waited:
		return true
	case <-time.After(limit):
		return false
	}
}

// accepted tells close that the accepting goroutines have returned.
func (l *lifecycle) accepted() { l.served <- nil }
