package server

import (
	"testing"

	"github.com/qlessd/qlessd/store"
)

// A touched key breaks the watch of every session watching it, in its
// database only, until the session stops watching.
func TestWatchRegistry(t *testing.T) {
	r := newWatchRegistry()
	a, b := &session{}, &session{}
	k0 := store.KeyRef{DB: 0, Key: "k"}
	k1 := store.KeyRef{DB: 1, Key: "k"}
	other := store.KeyRef{DB: 0, Key: "other"}
	r.touch([]store.KeyRef{k0}) // no watches: nothing to do
	r.add(a, []store.KeyRef{k0, other})
	r.add(b, []store.KeyRef{k0})
	if r.count.Load() != 3 {
		t.Fatalf("%d watches, want 3", r.count.Load())
	}
	r.touch([]store.KeyRef{k1})
	if a.watchDirty.Load() || b.watchDirty.Load() {
		t.Fatal("a key of another database broke a watch")
	}
	r.touch([]store.KeyRef{other})
	if !a.watchDirty.Load() || b.watchDirty.Load() {
		t.Fatalf("touching other: a broken %v, b broken %v; want true, false", a.watchDirty.Load(), b.watchDirty.Load())
	}
	r.removeAll(a, map[store.KeyRef]bool{k0: true, other: false})
	if a.watchDirty.Load() {
		t.Error("a's broken watch outlived UNWATCH")
	}
	r.touch([]store.KeyRef{k0})
	if a.watchDirty.Load() || !b.watchDirty.Load() {
		t.Errorf("touching k: a broken %v, b broken %v; want false, true", a.watchDirty.Load(), b.watchDirty.Load())
	}
	r.removeAll(b, map[store.KeyRef]bool{k0: true})
	if r.count.Load() != 0 || len(r.watchers) != 0 {
		t.Errorf("left: %d watches, %v", r.count.Load(), r.watchers)
	}
}
