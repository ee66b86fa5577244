package tests

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestSetsDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	hsSameAll(t, p, [][]string{
		// arity
		{"SADD"}, {"SADD", "s"}, {"SREM", "s"}, {"SMEMBERS"}, {"SMEMBERS", "s", "x"}, {"SISMEMBER", "s"},
		{"SMISMEMBER", "s"}, {"SCARD"}, {"SPOP"}, {"SRANDMEMBER"}, {"SMOVE", "a", "b"}, {"SUNION"},
		{"SINTER"}, {"SDIFF"}, {"SUNIONSTORE", "d"}, {"SINTERSTORE", "d"}, {"SDIFFSTORE", "d"},
		{"SINTERCARD", "1"}, {"SSCAN", "s"},

		// integer sets reply in numeric order, as intsets do
		{"SADD", "n", "3", "1", "2", "10", "-5", "1"}, {"SMEMBERS", "n"}, {"SCARD", "n"},
		{"SADD", "n", "2", "7"}, {"SREM", "n", "10", "99", "10"}, {"SMEMBERS", "n"},
		{"SISMEMBER", "n", "7"}, {"SISMEMBER", "n", "8"}, {"SISMEMBER", "nokey", "7"},
		{"SMISMEMBER", "n", "7", "8", "1"}, {"SMISMEMBER", "nokey", "a", "b"},
		{"SCARD", "nokey"}, {"SMEMBERS", "nokey"}, {"SREM", "nokey", "a"},
		{"SSCAN", "n", "0"}, {"SSCAN", "n", "123", "COUNT", "1"}, {"SSCAN", "n", "0", "MATCH", "1*"},
		{"SSCAN", "n", "0", "MATCH", "-*"}, {"SSCAN", "n", "x"}, {"SSCAN", "n", "0", "COUNT", "0"},
		{"SSCAN", "n", "0", "MATCH"}, {"SSCAN", "nokey", "0"}, {"SSCAN", "nokey", "0", "junk"},
		{"SADD", "n2", "9223372036854775807", "-9223372036854775808", "0", "01", "-0", "+1"},
		{"SMEMBERS", "n2"},

		// other members
		{"SADD", "s", "a", "b", "c", "\x00bin\r\n", ""}, {"SMEMBERS", "s"}, {"SISMEMBER", "s", ""},
		{"SISMEMBER", "s", "\x00bin\r\n"}, {"SREM", "s", "\x00bin\r\n", ""}, {"SCARD", "s"},

		// the key goes away with its last member
		{"SADD", "one", "x"}, {"SREM", "one", "x"}, {"EXISTS", "one"}, {"TYPE", "one"},
		{"SADD", "p1", "only"}, {"SPOP", "p1"}, {"EXISTS", "p1"}, {"SPOP", "p1"},
		{"SADD", "p2", "1", "2", "3"}, {"SPOP", "p2", "3"}, {"EXISTS", "p2"},
		{"SADD", "p3", "4", "5", "6"}, {"SPOP", "p3", "10"}, {"EXISTS", "p3"},
		{"SADD", "p4", "7"}, {"SMOVE", "p4", "p5", "7"}, {"EXISTS", "p4"}, {"SMEMBERS", "p5"},

		// SPOP and SRANDMEMBER arguments
		{"SPOP", "nokey"}, {"SPOP", "nokey", "3"}, {"SPOP", "nokey", "0"}, {"SPOP", "n", "0"},
		{"SPOP", "n", "-1"}, {"SPOP", "n", "x"}, {"SPOP", "n", "1", "2"}, {"SPOP", "n", "1.0"},
		{"SRANDMEMBER", "nokey"}, {"SRANDMEMBER", "nokey", "3"}, {"SRANDMEMBER", "nokey", "-3"},
		{"SRANDMEMBER", "n", "0"}, {"SRANDMEMBER", "n", "x"}, {"SRANDMEMBER", "n", "1", "2"},
		{"SRANDMEMBER", "n", "-9223372036854775808"}, {"SRANDMEMBER", "n", "100"},
		{"SRANDMEMBER", "n", "9223372036854775807"}, {"SMEMBERS", "n"},

		// SMOVE
		{"SMOVE", "n", "m", "7"}, {"SMOVE", "n", "m", "7"}, {"SMEMBERS", "m"}, {"SMOVE", "n", "n", "1"},
		{"SMOVE", "n", "n", "404"}, {"SMOVE", "nokey", "m", "1"}, {"SMOVE", "n", "m", "404"},
		{"SADD", "m", "2"}, {"SMOVE", "n", "m", "2"}, {"SCARD", "n"}, {"SCARD", "m"},

		// algebra on integer sets (numeric order)
		{"DEL", "a", "b", "c"}, {"SADD", "a", "1", "2", "3", "4", "5"}, {"SADD", "b", "4", "5", "6"},
		{"SADD", "c", "5", "7", "4"},
		{"SINTER", "a", "b", "c"}, {"SINTER", "a"}, {"SINTER", "a", "nokey"}, {"SINTER", "nokey", "a"},
		{"SUNION", "a", "b", "c"}, {"SUNION", "nokey"}, {"SUNION", "a", "nokey"},
		{"SDIFF", "a", "b", "c"}, {"SDIFF", "a"}, {"SDIFF", "nokey", "a"}, {"SDIFF", "a", "nokey"}, {"SDIFF", "a", "a"},
		{"SINTERSTORE", "d", "a", "b"}, {"SMEMBERS", "d"}, {"SUNIONSTORE", "d", "a", "c"}, {"SMEMBERS", "d"},
		{"SDIFFSTORE", "d", "a", "b"}, {"SMEMBERS", "d"}, {"SINTERSTORE", "d", "a", "nokey"}, {"EXISTS", "d"},
		{"SET", "d", "string"}, {"SUNIONSTORE", "d", "a"}, {"TYPE", "d"}, {"SDIFFSTORE", "d", "a", "a"},
		{"EXISTS", "d"}, {"SUNIONSTORE", "d", "nokey"}, {"SINTERSTORE", "a", "a", "b"}, {"SMEMBERS", "a"},

		// SINTERCARD
		{"SINTERCARD", "2", "b", "c"}, {"SINTERCARD", "1", "b"}, {"SINTERCARD", "2", "b", "c", "LIMIT", "1"},
		{"SINTERCARD", "2", "b", "c", "LIMIT", "0"}, {"SINTERCARD", "2", "b", "nokey"},
		{"SINTERCARD", "0", "b"}, {"SINTERCARD", "-1", "b"}, {"SINTERCARD", "x", "b"},
		{"SINTERCARD", "3", "b", "c"}, {"SINTERCARD", "1", "b", "c"}, {"SINTERCARD", "1", "b", "LIMIT"},
		{"SINTERCARD", "1", "b", "LIMIT", "-1"}, {"SINTERCARD", "1", "b", "LIMIT", "x"},
		{"SINTERCARD", "1", "b", "limit", "1", "LIMIT", "5"}, {"SINTERCARD", "1", "nokey", "bogus"},
	})

	// Every set command on a key of another type.
	p.Same(t, "SET", "str", "x")
	p.Same(t, "SADD", "ok", "1")
	for _, c := range [][]string{
		{"SADD", "str", "a"}, {"SREM", "str", "a"}, {"SMEMBERS", "str"}, {"SISMEMBER", "str", "a"},
		{"SMISMEMBER", "str", "a"}, {"SCARD", "str"}, {"SPOP", "str"}, {"SPOP", "str", "0"}, {"SPOP", "str", "x"},
		{"SRANDMEMBER", "str"}, {"SRANDMEMBER", "str", "0"}, {"SRANDMEMBER", "str", "-2"},
		{"SMOVE", "str", "ok", "x"}, {"SMOVE", "ok", "str", "1"}, {"SMOVE", "ok", "str", "404"},
		{"SMOVE", "nokey", "str", "1"}, {"SMOVE", "str", "str", "1"},
		{"SUNION", "ok", "str"}, {"SUNION", "nokey", "str"}, {"SINTER", "ok", "str"}, {"SINTER", "nokey", "str"},
		{"SINTER", "str", "nokey"}, {"SDIFF", "ok", "str"}, {"SDIFF", "nokey", "str"},
		{"SUNIONSTORE", "d2", "ok", "str"}, {"SINTERSTORE", "d2", "nokey", "str"}, {"SDIFFSTORE", "d2", "str"},
		{"EXISTS", "d2"}, {"SINTERCARD", "2", "ok", "str"}, {"SINTERCARD", "2", "nokey", "str"},
		{"SSCAN", "str", "0"}, {"SSCAN", "str", "x"}, {"SCARD", "ok"},
	} {
		p.Same(t, c...)
	}
	p.Same(t, "HSET", "hash", "f", "v")
	p.Same(t, "SADD", "hash", "a")
	p.Same(t, "SUNIONSTORE", "hash", "ok")
	p.Same(t, "TYPE", "hash")
}

// TestSetsUnordered covers sets of strings, whose reply order is Redis's
// hash order.
func TestSetsUnordered(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "SADD", "a", "apple", "pear", "fig", "kiwi", "1")
	p.Same(t, "SADD", "b", "pear", "fig", "lime", "2")
	p.Same(t, "SADD", "c", "fig", "plum", "pear")
	for _, c := range [][]string{
		{"SMEMBERS", "a"}, {"SINTER", "a", "b"}, {"SINTER", "a", "b", "c"}, {"SUNION", "a", "b", "c"},
		{"SDIFF", "a", "b"}, {"SDIFF", "a", "b", "c"}, {"SRANDMEMBER", "a", "5"}, {"SRANDMEMBER", "a", "50"},
		{"SUNIONSTORE", "u", "a", "b"}, {"SMEMBERS", "u"}, {"SINTERSTORE", "i", "a", "b", "c"}, {"SMEMBERS", "i"},
		{"SDIFFSTORE", "df", "a", "c"}, {"SMEMBERS", "df"}, {"SINTERCARD", "3", "a", "b", "c"},
		{"SINTERCARD", "2", "a", "b", "LIMIT", "1"},
	} {
		p.SameSorted(t, c...)
	}
	// SSCAN on a hashtable-encoded set: compare the union of all pages.
	args := []string{"SADD", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, fmt.Sprintf("member:%d", i))
	}
	p.Same(t, args...)
	// More than 512 integers also leave the intset encoding.
	args = []string{"SADD", "ints"}
	for i := 0; i < 600; i++ {
		args = append(args, strconv.Itoa(i*7))
	}
	p.Same(t, args...)
	for _, c := range []struct {
		key  string
		opts []string
	}{
		{"big", nil}, {"big", []string{"COUNT", "3"}}, {"big", []string{"MATCH", "member:9*", "COUNT", "50"}},
		{"ints", []string{"COUNT", "20"}}, {"a", []string{"COUNT", "1"}},
		{"a", []string{"MATCH", "*p*", "COUNT", "100"}}, {"a", nil},
	} {
		q := hsScanAll(t, p.Q, "SSCAN", c.key, false, c.opts...)
		r := hsScanAll(t, p.R, "SSCAN", c.key, false, c.opts...)
		if strings.Join(q, "\n") != strings.Join(r, "\n") {
			t.Errorf("SSCAN %s %v: qlessd %d members, redis %d", c.key, c.opts, len(q), len(r))
		}
	}
	p.Same(t, "SCARD", "big")
	p.SameSorted(t, "SMEMBERS", "ints")
	p.SameSorted(t, "SINTER", "big", "big")
}

// TestSetsRandomProperties checks SPOP and SRANDMEMBER replies by their
// properties: members of the set, distinct for a positive count, removed by
// SPOP.
func TestSetsRandomProperties(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	var all []string
	for i := 0; i < 30; i++ {
		all = append(all, fmt.Sprintf("m%02d", i))
	}
	member := map[string]bool{}
	for _, m := range all {
		member[m] = true
	}
	c.Do(t, append([]string{"SADD", "s"}, all...)...)
	for round := 0; round < 50; round++ {
		if g := hsFlat(t, c.Do(t, "SRANDMEMBER", "s")); !member[g[0]] {
			t.Fatalf("SRANDMEMBER s = %q", g)
		}
		for _, n := range []int{1, 7, 29, 30, 31} {
			got := hsFlat(t, c.Do(t, "SRANDMEMBER", "s", strconv.Itoa(n)))
			if len(got) != min(n, 30) {
				t.Fatalf("SRANDMEMBER s %d gave %d", n, len(got))
			}
			seen := map[string]bool{}
			for _, g := range got {
				if !member[g] || seen[g] {
					t.Fatalf("SRANDMEMBER s %d: %q foreign or repeated", n, g)
				}
				seen[g] = true
			}
		}
		neg := hsFlat(t, c.Do(t, "SRANDMEMBER", "s", "-100"))
		if len(neg) != 100 {
			t.Fatalf("SRANDMEMBER s -100 gave %d", len(neg))
		}
		for _, g := range neg {
			if !member[g] {
				t.Fatalf("SRANDMEMBER s -100: foreign %q", g)
			}
		}
	}
	if card := c.Do(t, "SCARD", "s"); card != ":30\r\n" {
		t.Fatalf("SRANDMEMBER changed the set: %q", card)
	}

	// SPOP removes exactly what it returns.
	left := map[string]bool{}
	for _, m := range all {
		left[m] = true
	}
	pop := func(args ...string) []string {
		got := hsFlat(t, c.Do(t, args...))
		for _, g := range got {
			if !left[g] {
				t.Fatalf("%v returned %q, not in the set", args, g)
			}
			delete(left, g)
		}
		return got
	}
	if g := pop("SPOP", "s"); len(g) != 1 {
		t.Fatalf("SPOP s = %q", g)
	}
	if g := pop("SPOP", "s", "10"); len(g) != 10 {
		t.Fatalf("SPOP s 10 = %q", g)
	}
	members := hsFlat(t, c.Do(t, "SMEMBERS", "s"))
	var want []string
	for m := range left {
		want = append(want, m)
	}
	sort.Strings(want)
	sort.Strings(members)
	if strings.Join(members, ",") != strings.Join(want, ",") {
		t.Fatalf("after SPOP: members %q, want %q", members, want)
	}
	if g := pop("SPOP", "s", "100"); len(g) != 19 || len(left) != 0 {
		t.Fatalf("SPOP s 100 = %d members, %d left", len(g), len(left))
	}
	if e := c.Do(t, "EXISTS", "s"); e != ":0\r\n" {
		t.Fatalf("emptied set still exists: %q", e)
	}
}

// TestSetsScanGuarantee checks SCAN's promise on a paged set: a member
// present from the first call to the last is returned, whatever is added or
// removed between pages, and pages stay near COUNT when prefixes differ.
func TestSetsScanGuarantee(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	args := []string{"SADD", "s"}
	for i := 0; i < 400; i++ {
		args = append(args, fmt.Sprintf("%03d-member", i))
	}
	c.Do(t, args...)
	seen := map[string]bool{}
	cursor := "0"
	pages := 0
	for {
		flat := hsFlat(t, c.Do(t, "SSCAN", "s", cursor, "COUNT", "10"))
		cursor = flat[0]
		for _, m := range flat[1:] {
			seen[m] = true
		}
		if len(flat)-1 > 10 {
			t.Fatalf("page of %d members for COUNT 10", len(flat)-1)
		}
		pages++
		// Churn: remove members already returned and add new ones.
		c.Do(t, "SREM", "s", fmt.Sprintf("%03d-member", pages*3))
		c.Do(t, "SADD", "s", fmt.Sprintf("new-%d", pages), fmt.Sprintf("%03d-extra", pages*7))
		if cursor == "0" {
			break
		}
	}
	for i := 0; i < 400; i++ {
		m := fmt.Sprintf("%03d-member", i)
		removed := i%3 == 0 && i/3 >= 1 && i/3 <= pages
		if !removed && !seen[m] {
			t.Errorf("member %s present throughout was not returned", m)
		}
	}
	if pages < 40 {
		t.Errorf("400 members took only %d pages of COUNT 10", pages)
	}
}
