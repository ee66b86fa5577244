package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// scriptGate closes the window between a command's busy check
// (refuseBusy) and its turn on the store lock. A command that found no
// script running may still be on its way to the lock when a script starts;
// were the script to take the lock first, the command would wait behind it
// with no BUSY reply, until the script ended or someone killed it. So a
// script, once announced (later arrivals then wait or get BUSY), first
// waits for every command that passed its check before the announcement:
// commands are counted in the epoch they entered in, and a script moves
// the epoch on and waits for the old one to empty.
type scriptGate struct {
	epoch    atomic.Uint64
	inflight [2]atomic.Int64 // by epoch parity
	drainMu  sync.Mutex      // one drain at a time, so "the old epoch" is one
}

// gatePass is one command's place in the gate.
type gatePass struct {
	g    *scriptGate
	slot int
	in   bool
}

func (g *scriptGate) enter() gatePass {
	for {
		e := g.epoch.Load()
		g.inflight[e&1].Add(1)
		if g.epoch.Load() == e {
			return gatePass{g: g, slot: int(e & 1), in: true}
		}
		// A script moved the epoch meanwhile: count in the new one.
		g.inflight[e&1].Add(-1)
	}
}

// leave is called once the command is done with the store lock, or is
// about to wait for something other than it; a second call does nothing.
func (p *gatePass) leave() {
	if p.in {
		p.g.inflight[p.slot].Add(-1)
		p.in = false
	}
}

// drain is run by an announced script's own command (pass is its own):
// it returns once every command that entered before has left.
func (g *scriptGate) drain(pass *gatePass) {
	pass.leave()
	g.drainMu.Lock()
	defer g.drainMu.Unlock()
	old := g.epoch.Add(1) - 1
	for g.inflight[old&1].Load() > 0 {
		time.Sleep(20 * time.Microsecond)
	}
}
