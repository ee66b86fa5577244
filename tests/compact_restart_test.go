package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompactLayoutsRestart builds hashes and sets in every storage layout
// (inline listpack, inline hashtable, one item per element) and checks the
// replies against Redis before and after a restart. RENAME and expiry of
// each layout are covered by the store's tests.
func TestCompactLayoutsRestart(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	both := func(args ...string) {
		t.Helper()
		p.Same(t, args...)
	}
	long := strings.Repeat("L", 100)
	both("HSET", "lp", "zeta", "1", "alpha", "2", "mid", "3")
	both("HSET", "lp", "alpha", "two")
	both("HSET", "ht", "zeta", "1", "alpha", long)
	big := []string{"HSET", "hi"}
	for i := 600; i > 0; i-- {
		big = append(big, fmt.Sprintf("f%d", i), long)
	}
	both(big...)
	both("SADD", "is", "30", "-2", "7")
	both("SADD", "ss", "b", "a", "c")
	sbig := []string{"SADD", "si"}
	for i := 0; i < 300; i++ {
		sbig = append(sbig, fmt.Sprintf("m%d", i))
	}
	both(sbig...)
	// SUNIONSTORE and SMOVE rebuild sets in a new key.
	for _, k := range []string{"is", "ss", "si"} {
		both("SUNIONSTORE", k+"2", k)
		both("DEL", k)
	}
	both("SMOVE", "ss2", "ss3", "b")
	both("SMOVE", "ss3", "ss2", "b")

	check := func() {
		t.Helper()
		p.Same(t, "HGETALL", "lp") // listpack and intset: exact order
		p.Same(t, "SMEMBERS", "is2")
		for _, k := range []string{"ht", "hi"} {
			p.SameSorted(t, "HKEYS", k)
			p.Same(t, "HGET", k, "f7")
		}
		for _, k := range []string{"ss2", "si2"} {
			p.SameSorted(t, "SMEMBERS", k)
		}
		p.Same(t, "DBSIZE")
	}
	check()
	p.RestartQlessd(t)
	check()
	// Writes after the restart keep the order rules.
	both("HSET", "lp", "new", "4", "zeta", "one")
	both("HDEL", "lp", "mid")
	both("HGETALL", "lp")
	both("DEL", "hi", "si2", "ht")
	both("DBSIZE")
}
