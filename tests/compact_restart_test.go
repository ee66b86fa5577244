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
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	r := StartRedis(t)
	qc, rc := DialRaw(t, q.Addr), DialRaw(t, r.Addr)
	both := func(args ...string) {
		t.Helper()
		if a, b := qc.Do(t, args...), rc.Do(t, args...); a != b {
			t.Fatalf("%s: qlessd %q, redis %q", quoteArgs(args), a, b)
		}
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

	check := func(c *Raw) {
		t.Helper()
		for _, k := range []string{"lp", "is2"} { // listpack and intset: exact order
			cmd := "HGETALL"
			if k == "is2" {
				cmd = "SMEMBERS"
			}
			if a, b := c.Do(t, cmd, k), rc.Do(t, cmd, k); a != b {
				t.Errorf("%s %s: qlessd %q, redis %q", cmd, k, a, b)
			}
		}
		for _, k := range []string{"ht", "hi"} {
			if a, b := SortedReply(c.Do(t, "HKEYS", k)), SortedReply(rc.Do(t, "HKEYS", k)); a != b {
				t.Errorf("HKEYS %s differs", k)
			}
			if a, b := c.Do(t, "HGET", k, "f7"), rc.Do(t, "HGET", k, "f7"); a != b {
				t.Errorf("HGET %s f7: qlessd %q, redis %q", k, a, b)
			}
		}
		for _, k := range []string{"ss2", "si2"} {
			if a, b := SortedReply(c.Do(t, "SMEMBERS", k)), SortedReply(rc.Do(t, "SMEMBERS", k)); a != b {
				t.Errorf("SMEMBERS %s differs", k)
			}
		}
		if a, b := c.Do(t, "DBSIZE"), rc.Do(t, "DBSIZE"); a != b {
			t.Errorf("DBSIZE: qlessd %q, redis %q", a, b)
		}
	}
	check(qc)
	q.Stop()
	q = StartQlessd(t, dir)
	qc = DialRaw(t, q.Addr)
	check(qc)
	// Writes after the restart keep the order rules.
	both("HSET", "lp", "new", "4", "zeta", "one")
	both("HDEL", "lp", "mid")
	both("HGETALL", "lp")
	both("DEL", "hi", "si2", "ht")
	both("DBSIZE")
}
