package luatable_test

import (
	"slices"
	"testing"

	"github.com/qlessd/qlessd/scripts/luatable"
)

func keysInOrder(keys []string, order []int) []string {
	out := make([]string, len(order))
	for i, j := range order {
		out[i] = keys[j]
	}
	return out
}

// The qless job object's constructor keys in source order, and the order
// redis-server 7.0 visits them in.
var (
	jobKeys = []string{"jid", "klass", "state", "queue", "worker", "tracked", "priority", "expires", "retries",
		"remaining", "data", "tags", "history", "failure", "spawned_from_jid", "dependents", "dependencies"}
	jobOrder = []string{"jid", "retries", "data", "failure", "expires", "remaining", "spawned_from_jid",
		"dependencies", "klass", "tracked", "tags", "queue", "state", "history", "dependents", "priority", "worker"}
)

// The orders below were read from redis-server 7.0 (TestDifferentialFixed
// checks the first two there).
func TestOrderFixed(t *testing.T) {
	cases := []struct {
		hint       int
		keys, want []string
	}{
		{luatable.ConstructorHint(len(jobKeys)), jobKeys, jobOrder},
		{0, []string{"b", "a", "zz", "c"}, []string{"a", "zz", "c", "b"}},
		{0, []string{"y", "x"}, []string{"y", "x"}},
		// Stock Lua 5.1 would hash these two alike (it skips byte 0 of a
		// 33-byte string) and visit them the other way round.
		{0, []string{"a", "b", "c", "d", "e", "0123456789abcdef0123456789abcdefX", "1123456789abcdef0123456789abcdefX"},
			[]string{"a", "c", "b", "e", "d", "0123456789abcdef0123456789abcdefX", "1123456789abcdef0123456789abcdefX"}},
		{0, []string{"b", "a", "b", "a", "b"}, []string{"a", "b"}},
		{0, nil, []string{}},
	}
	for _, c := range cases {
		got := keysInOrder(c.keys, luatable.Order(c.hint, c.keys, nil))
		if !slices.Equal(got, c.want) {
			t.Errorf("Order(%d, %q) = %q, want %q", c.hint, c.keys, got, c.want)
		}
	}
}

func TestOrderRepeatedKeysKeepFirstIndex(t *testing.T) {
	keys := []string{"a", "b", "a", "c", "b"}
	got := luatable.Order(0, keys, nil)
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 1, 3}) {
		t.Fatalf("indexes %v, want each distinct key once at its first index", got)
	}
	var tab luatable.Table
	tab.Reset(0, keys)
	for i, want := range []int{0, 1, 0, 3, 1} {
		if f := tab.Set(i); f != want {
			t.Errorf("Set(%d) = %d, want %d", i, f, want)
		}
	}
}

func TestOrderAppends(t *testing.T) {
	dst := luatable.Order(0, []string{"x"}, []int{7})
	if !slices.Equal(dst, []int{7, 0}) {
		t.Fatalf("got %v, want the order appended after the existing 7", dst)
	}
}

func TestHash(t *testing.T) {
	// Redis hashes every byte, so strings 32 bytes or longer that differ
	// only where stock Lua 5.1 skips bytes still hash apart.
	a := "0123456789abcdef0123456789abcdefX"
	b := "1123456789abcdef0123456789abcdefX"
	if luatable.Hash(a) == luatable.Hash(b) {
		t.Errorf("Hash(%q) == Hash(%q); byte 0 should count", a, b)
	}
	if luatable.Hash("") != 0 || luatable.Hash("a") != 1^(1<<5+0+'a') {
		t.Errorf("Hash of short strings: %d %d", luatable.Hash(""), luatable.Hash("a"))
	}
}

func TestConstructorHint(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 1, 7: 7, 8: 8, 15: 15, 16: 16, 17: 18, 19: 20, 33: 36, 100: 104} {
		if got := luatable.ConstructorHint(n); got != want {
			t.Errorf("ConstructorHint(%d) = %d, want %d", n, got, want)
		}
	}
}
