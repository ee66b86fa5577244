package server

import (
	"slices"
	"sync"
	"testing"
)

// Hooks run in the order added with the client's id; one added by a
// running hook waits for the next disconnect, and adding never blocks on
// a run.
func TestDisconnectHooks(t *testing.T) {
	var h disconnectHooks
	h.run(1) // none: nothing to do
	var got []string
	h.add(func(id int64) { got = append(got, "a", string(rune('0'+id))) })
	h.add(func(id int64) {
		got = append(got, "b")
		if id == 2 {
			h.add(func(int64) { got = append(got, "late") })
		}
	})
	h.run(2)
	if want := []string{"a", "2", "b"}; !slices.Equal(got, want) {
		t.Fatalf("first run: %q, want %q", got, want)
	}
	got = nil
	h.run(3)
	if want := []string{"a", "3", "b", "late"}; !slices.Equal(got, want) {
		t.Fatalf("second run: %q, want %q", got, want)
	}

	// Runs and adds from many goroutines at once (for -race).
	var hc disconnectHooks
	var mu sync.Mutex
	seen := map[int64]int{}
	hc.add(func(id int64) { mu.Lock(); seen[id]++; mu.Unlock() })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() { defer wg.Done(); hc.run(int64(i)) }()
		go func() { defer wg.Done(); hc.add(func(int64) {}) }()
	}
	wg.Wait()
	for i := range int64(8) {
		if seen[i] != 1 {
			t.Errorf("client %d: the first hook ran %d times", i, seen[i])
		}
	}
}
