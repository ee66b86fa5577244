package server

import (
	"sync"
	"sync/atomic"

	"github.com/qlessd/qlessd/store"
)

// watchRegistry knows which connections WATCH which keys, so that a
// committed change to a key breaks their transactions (the session's
// watchDirty, which EXEC reads). Each session keeps its own list of
// watched keys (session.watched); the registry is the reverse index.
type watchRegistry struct {
	mu       sync.Mutex
	watchers map[store.KeyRef]map[*session]struct{}
	count    atomic.Int64 // watches held: a commit with none takes no lock
}

func newWatchRegistry() *watchRegistry {
	return &watchRegistry{watchers: map[store.KeyRef]map[*session]struct{}{}}
}

// add registers sess as watching refs, which it did not watch yet.
func (r *watchRegistry) add(sess *session, refs []store.KeyRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ref := range refs {
		set := r.watchers[ref]
		if set == nil {
			set = map[*session]struct{}{}
			r.watchers[ref] = set
		}
		set[sess] = struct{}{}
		r.count.Add(1)
	}
}

// removeAll forgets every key sess watches (watched, its own list) and
// any change seen to them.
func (r *watchRegistry) removeAll(sess *session, watched map[store.KeyRef]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for ref := range watched {
		if set := r.watchers[ref]; set != nil {
			delete(set, sess)
			if len(set) == 0 {
				delete(r.watchers, ref)
			}
		}
		r.count.Add(-1)
	}
	sess.watchDirty.Store(false)
}

// touch breaks the WATCH of every session watching a touched key.
func (r *watchRegistry) touch(touched []store.KeyRef) {
	if r.count.Load() == 0 || len(touched) == 0 {
		return
	}
	r.mu.Lock()
	for _, k := range touched {
		for sess := range r.watchers[k] {
			sess.watchDirty.Store(true)
		}
	}
	r.mu.Unlock()
}
