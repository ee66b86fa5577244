package server

import "sync"

// disconnectHooks are the functions OnDisconnect registered, run with a
// closed client's id. Each run takes a copy, so a hook may register
// another (it runs from the next disconnect on) and no lock is held while
// the hooks run.
type disconnectHooks struct {
	mu  sync.Mutex
	fns []func(sessionID int64)
}

func (h *disconnectHooks) add(fn func(sessionID int64)) {
	h.mu.Lock()
	h.fns = append(h.fns, fn)
	h.mu.Unlock()
}

// run calls every hook, in the order they were added, with id.
func (h *disconnectHooks) run(id int64) {
	h.mu.Lock()
	fns := append([]func(int64){}, h.fns...)
	h.mu.Unlock()
	for _, fn := range fns {
		fn(id)
	}
}
