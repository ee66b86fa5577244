package tests

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestHashesDifferential(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	hsSameAll(t, p, [][]string{
		// arity and pairing
		{"HSET"}, {"HSET", "h"}, {"HSET", "h", "f"}, {"HSET", "h", "a", "1", "b"},
		{"HMSET", "h", "a"}, {"HMSET", "h", "a", "1", "b"}, {"HGET", "h"}, {"HGET", "h", "a", "b"},
		{"HSETNX", "h", "a"}, {"HMGET", "h"}, {"HGETALL"}, {"HGETALL", "h", "x"}, {"HKEYS"}, {"HVALS"},
		{"HDEL", "h"}, {"HEXISTS", "h"}, {"HLEN"}, {"HSTRLEN", "h"}, {"HINCRBY", "h", "f"},
		{"HINCRBYFLOAT", "h", "f"}, {"HSCAN", "h"}, {"HRANDFIELD"}, {"EXISTS", "h"},

		{"HSET", "h", "a", "1", "b", "2"}, {"HSET", "h", "a", "10", "c", "3"},
		{"HSET", "h", "d", "x", "d", "y"}, {"HGET", "h", "d"}, {"HMSET", "h", "e", "4", "f", "5"},
		{"HGET", "h", "a"}, {"HGET", "h", "nofield"}, {"HGET", "nokey", "f"},
		{"HSETNX", "h", "a", "z"}, {"HSETNX", "h", "g", "6"}, {"HSETNX", "new", "f", "v"}, {"HGETALL", "new"},
		{"HMGET", "h", "a", "nofield", "b"}, {"HMGET", "nokey", "a", "b"},
		{"HGETALL", "h"}, {"HKEYS", "h"}, {"HVALS", "h"}, {"HLEN", "h"},
		{"HGETALL", "nokey"}, {"HKEYS", "nokey"}, {"HVALS", "nokey"}, {"HLEN", "nokey"},
		{"HEXISTS", "h", "a"}, {"HEXISTS", "h", "zz"}, {"HEXISTS", "nokey", "a"},
		{"HSTRLEN", "h", "a"}, {"HSTRLEN", "h", "zz"}, {"HSTRLEN", "nokey", "a"},
		{"HDEL", "h", "a", "zz", "a"}, {"HDEL", "nokey", "a"}, {"HLEN", "h"},

		// binary-safe fields and values
		{"HSET", "bin", "\x00\xff", "v\r\n1", "", "empty", "\u00e9t\u00e9", "\x00"},
		{"HGETALL", "bin"}, {"HGET", "bin", ""}, {"HSTRLEN", "bin", "\x00\xff"}, {"HEXISTS", "bin", "\x00"},

		// the key goes away with its last field
		{"HDEL", "bin", "", "\x00\xff", "\u00e9t\u00e9"}, {"EXISTS", "bin"}, {"TYPE", "bin"},
		{"HSET", "one", "f", "v"}, {"HDEL", "one", "f"}, {"EXISTS", "one"}, {"HLEN", "one"},

		// HINCRBY
		{"HINCRBY", "n", "i", "5"}, {"HINCRBY", "n", "i", "-3"}, {"HINCRBY", "n", "i", "0"},
		{"HINCRBY", "n", "i", "x"}, {"HINCRBY", "n", "i", "1.5"}, {"HINCRBY", "n", "i", ""},
		{"HINCRBY", "n", "i", " 1"}, {"HINCRBY", "n", "i", "+1"}, {"HINCRBY", "n", "i", "01"},
		{"HINCRBY", "n", "i", "9223372036854775808"}, {"HINCRBY", "nokey2", "i", "x"}, {"EXISTS", "nokey2"},
		{"HSET", "n", "s", "abc", "z", "01", "sp", " 1", "neg0", "-0", "big", "9223372036854775807",
			"small", "-9223372036854775808"},
		{"HINCRBY", "n", "s", "1"}, {"HINCRBY", "n", "z", "1"}, {"HINCRBY", "n", "sp", "1"},
		{"HINCRBY", "n", "neg0", "1"}, {"HINCRBY", "n", "big", "1"}, {"HINCRBY", "n", "big", "0"},
		{"HINCRBY", "n", "big", "-9223372036854775808"}, {"HINCRBY", "n", "small", "-1"},
		{"HINCRBY", "n", "small", "9223372036854775807"}, {"HGETALL", "n"},

		// HINCRBYFLOAT: long double arithmetic, %.17Lf printing
		{"HINCRBYFLOAT", "fl", "a", "0.1"}, {"HINCRBYFLOAT", "fl", "a", "0.2"},
		{"HINCRBYFLOAT", "fl", "b", "10.5"}, {"HINCRBYFLOAT", "fl", "b", "-0.5"},
		{"HINCRBYFLOAT", "fl", "c", "3.0e3"}, {"HINCRBYFLOAT", "fl", "c", "1.5e-3"},
		{"HINCRBYFLOAT", "fl", "d", "1e-20"}, {"HINCRBYFLOAT", "fl", "e", "-0.0"},
		{"HINCRBYFLOAT", "fl", "f", "-1e-20"}, {"HINCRBYFLOAT", "fl", "g", "0x10"},
		{"HINCRBYFLOAT", "fl", "g", "0x1.8p1"}, {"HINCRBYFLOAT", "fl", "h", "1e400"},
		{"HINCRBYFLOAT", "fl", "i", "1e4932"}, {"HINCRBYFLOAT", "fl", "i", "1e4932"},
		{"HINCRBYFLOAT", "fl", "j", "123456789012345678901234567890"}, {"HINCRBYFLOAT", "fl", "k", ".5"},
		{"HINCRBYFLOAT", "fl", "k", "5."}, {"HINCRBYFLOAT", "fl", "l", "+7"}, {"HINCRBYFLOAT", "fl", "m", "1E2"},
		{"HINCRBYFLOAT", "fl", "m", "3.14159265358979323846"}, {"HINCRBYFLOAT", "fl", "o", "-2.5e-7"},
		{"HINCRBYFLOAT", "fl", "p", "1e5000"}, {"HINCRBYFLOAT", "fl", "p", "1e-5000"},
		{"HINCRBYFLOAT", "fl", "p", "0e-5000"}, {"HINCRBYFLOAT", "fl", "p", "0e99999999999999"},
		{"HINCRBYFLOAT", "fl", "x", "inf"}, {"HINCRBYFLOAT", "fl", "x", "-Infinity"},
		{"HINCRBYFLOAT", "fl", "x", "nan"}, {"HINCRBYFLOAT", "fl", "x", "abc"}, {"HINCRBYFLOAT", "fl", "x", ""},
		{"HINCRBYFLOAT", "fl", "x", " 1"}, {"HINCRBYFLOAT", "fl", "x", "1 "}, {"HINCRBYFLOAT", "fl", "x", "1e"},
		{"HINCRBYFLOAT", "fl", "x", "0x"}, {"HINCRBYFLOAT", "fl", "x", "1_0"}, {"HINCRBYFLOAT", "fl", "x", "0b1"},
		{"HINCRBYFLOAT", "fl", "x", "."}, {"HINCRBYFLOAT", "fl", "x", "1e+"}, {"HINCRBYFLOAT", "fl", "x", "0x1p"},
		// range edges of long double: LDBL_MAX, overflow, denormals and underflow
		{"HINCRBYFLOAT", "edge", "a", "1.18973149535723176502e+4932"}, {"HINCRBYFLOAT", "edge", "b", "1.2e4932"},
		{"HINCRBYFLOAT", "edge", "c", "0x1.fffffffffffffffep16383"}, {"HINCRBYFLOAT", "edge", "d", "0x1p16384"},
		{"HINCRBYFLOAT", "edge", "e", "2e-4951"}, {"HINCRBYFLOAT", "edge", "e", "1.8e-4951"},
		{"HINCRBYFLOAT", "edge", "f", "0x1p-16446"}, {"HINCRBYFLOAT", "edge", "f", "0x1.0000000000000002p-16446"},
		{"HINCRBYFLOAT", "edge", "g", "1e-400"}, {"HINCRBYFLOAT", "edge", "h", "99999999999999999.5"},
		{"HINCRBYFLOAT", "edge", "i", "0xAbC.dEfp-3"}, {"HINCRBYFLOAT", "edge", "j", "00000.0000001e7"},
		{"HINCRBYFLOAT", "edge", "a", "-1.18973149535723176502e+4932"},
		{"HINCRBYFLOAT", "edge", "c", "1e4931"}, {"HGET", "edge", "c"},
		{"HSET", "fl", "s", "abc", "inf", "inf", "int", "10", "sp", " 2"},
		{"HINCRBYFLOAT", "fl", "s", "1"}, {"HINCRBYFLOAT", "fl", "inf", "1"}, {"HINCRBYFLOAT", "fl", "int", "0.5"},
		{"HINCRBYFLOAT", "fl", "sp", "1"}, {"HINCRBYFLOAT", "nokey3", "x", "bad"}, {"EXISTS", "nokey3"},
		{"HGETALL", "fl"},

		// HRANDFIELD errors and empty cases
		{"HRANDFIELD", "nokey"}, {"HRANDFIELD", "nokey", "5"}, {"HRANDFIELD", "nokey", "-5", "WITHVALUES"},
		{"HRANDFIELD", "nokey", "0"}, {"HRANDFIELD", "n", "0"}, {"HRANDFIELD", "n", "x"},
		{"HRANDFIELD", "n", "1.5"}, {"HRANDFIELD", "n", "-9223372036854775808"},
		{"HRANDFIELD", "n", "9223372036854775807", "WITHVALUES"}, {"HRANDFIELD", "n", "-4611686018427387904", "withvalues"},
		{"HRANDFIELD", "n", "4611686018427387904", "withvalues"}, {"HRANDFIELD", "n", "1", "withvalue"},
		{"HRANDFIELD", "n", "1", "withvalues", "x"}, {"HRANDFIELD", "n", "x", "withvalues"},
		{"HRANDFIELD", "one", "1", "withvalues"}, {"HRANDFIELD", "one"},
	})

	// Every hash command on a key of another type.
	p.Same(t, "SET", "str", "x")
	for _, c := range [][]string{
		{"HGET", "str", "f"}, {"HSET", "str", "f", "v"}, {"HMSET", "str", "f", "v"}, {"HSETNX", "str", "f", "v"},
		{"HMGET", "str", "f"}, {"HGETALL", "str"}, {"HKEYS", "str"}, {"HVALS", "str"}, {"HDEL", "str", "f"},
		{"HEXISTS", "str", "f"}, {"HLEN", "str"}, {"HSTRLEN", "str", "f"}, {"HINCRBY", "str", "f", "1"},
		{"HINCRBY", "str", "f", "x"}, {"HINCRBYFLOAT", "str", "f", "1"}, {"HINCRBYFLOAT", "str", "f", "x"},
		{"HINCRBYFLOAT", "str", "f", "inf"}, {"HSCAN", "str", "0"}, {"HSCAN", "str", "x"},
		{"HSCAN", "str", "0", "bogus"}, {"HRANDFIELD", "str"}, {"HRANDFIELD", "str", "0"},
		{"HRANDFIELD", "str", "-1", "WITHVALUES"}, {"HRANDFIELD", "str", "x"}, {"GET", "str"},
	} {
		p.Same(t, c...)
	}
	p.Same(t, "SADD", "set", "a")
	p.Same(t, "HGET", "set", "a")
	p.Same(t, "HSET", "set", "a", "b")
}

// TestHashesOrder covers replies in the hash's own order: insertion order,
// byte for byte, while Redis keeps the hash as a listpack.
func TestHashesOrder(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "HSET", "h", "zeta", "1", "alpha", "2", "mid", "3", "beta", "4")
	p.Same(t, "HSET", "h", "alpha", "updated", "gamma", "5") // an update keeps its place
	p.Same(t, "HDEL", "h", "mid")
	p.Same(t, "HSET", "h", "mid", "6")
	p.Same(t, "HINCRBY", "h", "zeta", "10")
	p.Same(t, "HINCRBYFLOAT", "h", "new", "1.5")
	p.Same(t, "HSETNX", "h", "first", "7")
	for _, c := range [][]string{
		{"HGETALL", "h"}, {"HKEYS", "h"}, {"HVALS", "h"}, {"HSCAN", "h", "0"},
		{"HSCAN", "h", "0", "MATCH", "*a*"}, {"HRANDFIELD", "h", "100", "WITHVALUES"},
		{"HRANDFIELD", "h", "7"}, {"HRANDFIELD", "h", "9223372036854775807"},
	} {
		p.Same(t, c...)
	}
	p.Same(t, "HDEL", "h", "zeta", "alpha", "mid", "gamma", "new", "first")
	p.Same(t, "HRANDFIELD", "h")
	p.Same(t, "HRANDFIELD", "h", "-3")
	p.Same(t, "HRANDFIELD", "h", "-2", "WITHVALUES")

	// Up to the listpack limits (512 fields, 64-byte fields and values) the
	// order is insertion order; one past either, Redis's hashtable order is
	// its own and only the contents compare.
	atLimit := []string{"HSET", "full"}
	for i := 511; i >= 0; i-- {
		atLimit = append(atLimit, fmt.Sprintf("f%d", i), strconv.Itoa(i))
	}
	p.Same(t, atLimit...)
	p.Same(t, "HSET", "full", "f7", "changed")
	p.Same(t, "HDEL", "full", "f7", "f8")
	p.Same(t, "HSET", "full", strings.Repeat("k", 64), strings.Repeat("v", 64))
	p.Same(t, "HSET", "full", "f7", "back")
	p.Same(t, "HLEN", "full")
	hsSameExact(t, p, "full")
	p.Same(t, "HSET", "full", "one-more", "v")
	hsSameUnordered(t, p, "full")

	p.Same(t, "HSET", "wide", "z", "1", "y", strings.Repeat("v", 64), "x", "3")
	hsSameExact(t, p, "wide")
	p.Same(t, "HSET", "wide", "w", strings.Repeat("v", 65))
	hsSameUnordered(t, p, "wide")
	p.Same(t, "HSET", "long", "z", "1", strings.Repeat("f", 64), "2")
	hsSameExact(t, p, "long")
	p.Same(t, "HINCRBY", "long", strings.Repeat("f", 65), "1")
	hsSameUnordered(t, p, "long")
	// HSETNX on an existing field converts nothing, even with a long value.
	p.Same(t, "HSET", "nx", "b", "1", "a", "2")
	p.Same(t, "HSETNX", "nx", "b", strings.Repeat("v", 65))
	hsSameExact(t, p, "nx")
	// A hashtable never turns back into a listpack.
	p.Same(t, "HSET", "back", "b", "1", "a", strings.Repeat("v", 65))
	p.Same(t, "HSET", "back", "a", "short")
	hsSameUnordered(t, p, "back")
}

// hsSameExact compares every ordered reply of a listpack hash byte for byte.
func hsSameExact(t *testing.T, p *Pair, key string) {
	t.Helper()
	for _, c := range []string{"HGETALL", "HKEYS", "HVALS"} {
		p.Same(t, c, key)
	}
	p.Same(t, "HSCAN", key, "0", "COUNT", "1")
	p.Same(t, "HRANDFIELD", key, "100000", "WITHVALUES")
}

// hsSameUnordered compares the replies of a hashtable hash as sets.
func hsSameUnordered(t *testing.T, p *Pair, key string) {
	t.Helper()
	hsSamePairs(t, p, "HGETALL", key)
	p.SameSorted(t, "HKEYS", key)
	p.SameSorted(t, "HVALS", key)
	q := hsScanAll(t, p.Q, "HSCAN", key, true)
	r := hsScanAll(t, p.R, "HSCAN", key, true)
	if strings.Join(q, "\n") != strings.Join(r, "\n") {
		t.Errorf("HSCAN %s: qlessd %d elements, redis %d", key, len(q), len(r))
	}
}

func TestHashesScan(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	// A small hash (a listpack on Redis) comes whole in one page with
	// cursor 0, in insertion order.
	fields := []string{"", "*", "-", "?", "[", "\\", "]", "^", "a", "a*b", "a-b", "a?b", "a[b",
		"a\\b", "aXb", "ab", "abc", "b", "bb", "foo", "foobar", "hello", "hallo", "hllo", "hxllo",
		"x\x80", "x\xff", "y", "\xc3\xa9"}
	args := []string{"HSET", "h"}
	for i, f := range fields {
		args = append(args, f, strconv.Itoa(i))
	}
	p.Same(t, args...)
	hsSameAll(t, p, [][]string{
		{"HSCAN", "h", "0"}, {"HSCAN", "h", "0", "COUNT", "1"}, {"HSCAN", "h", "17"}, {"HSCAN", "h", ""},
		{"HSCAN", "h", "-1"}, {"HSCAN", "h", "+0"}, {"HSCAN", "h", "-0"}, {"HSCAN", "h", "18446744073709551615"},
		{"HSCAN", "h", "18446744073709551616"}, {"HSCAN", "h", " 1"}, {"HSCAN", "h", "1 "},
		{"HSCAN", "h", "x"}, {"HSCAN", "h", "0x1"}, {"HSCAN", "h", "-"}, {"HSCAN", "h", "1.0"},
		{"HSCAN", "h", "0", "COUNT"}, {"HSCAN", "h", "0", "COUNT", "0"}, {"HSCAN", "h", "0", "COUNT", "-1"},
		{"HSCAN", "h", "0", "COUNT", "x"}, {"HSCAN", "h", "0", "MATCH"}, {"HSCAN", "h", "0", "TYPE", "string"},
		{"HSCAN", "h", "0", "bogus", "1"}, {"HSCAN", "h", "0", "count", "5", "match", "a*", "COUNT", "2"},
		{"HSCAN", "nokey", "0"}, {"HSCAN", "nokey", "0", "bogus"}, {"HSCAN", "nokey", "x"},
		{"HSCAN", "h", "0", "COUNT", "9223372036854775807"},
	})
	for _, pat := range []string{"*", "**", "a*", "*b", "a*b", "*a*", "?", "??", "a?b", "[ab]", "[^ab]",
		"[a-b]*", "[b-a]*", "h[ae]llo", "h[^e]llo", "h*llo", "h?llo", "a\\*b", "a\\?b", "\\\\", "a\\\\b",
		"a[\\]]b", "[", "a[", "a[b", "[]", "[]]", "[^]", "\\", "*\\", "a[x-]", "[-a]", "x[\x80-\xff]",
		"x[a-\xff]", "x[\xff-a]", "foo*bar", "*o*a*", "***", "", "[\\^]", "[*]", "a[^]b", "?*", "*?",
		"h[a-", "[a-c", "\\a*", "a\\", "[\\", "\xc3*"} {
		p.Same(t, "HSCAN", "h", "0", "MATCH", pat)
	}
	// Random patterns over the glob metacharacters.
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "ab*?[]^-\\xo"
	for i := 0; i < 400; i++ {
		b := make([]byte, 1+rng.IntN(7))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		p.Same(t, "HSCAN", "h", "0", "MATCH", string(b))
	}
}

func TestHashesScanLarge(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	args := []string{"HSET", "big"}
	for i := 0; i < 600; i++ { // past hash-max-listpack-entries (512)
		args = append(args, fmt.Sprintf("field:%d", i), strconv.Itoa(i*i))
	}
	p.Same(t, args...)
	// A value over 64 bytes makes Redis switch to a hashtable too.
	p.Same(t, "HSET", "wide", "a", strings.Repeat("v", 65), "b", "1", "c", "2")
	for _, c := range []struct {
		key  string
		opts []string
	}{
		{"big", nil}, {"big", []string{"COUNT", "7"}}, {"big", []string{"COUNT", "1000"}},
		{"big", []string{"MATCH", "field:1*", "COUNT", "3"}}, {"wide", []string{"COUNT", "1"}},
	} {
		q := hsScanAll(t, p.Q, "HSCAN", c.key, true, c.opts...)
		r := hsScanAll(t, p.R, "HSCAN", c.key, true, c.opts...)
		if strings.Join(q, "\n") != strings.Join(r, "\n") {
			t.Errorf("HSCAN %s %v: qlessd %d elements, redis %d", c.key, c.opts, len(q), len(r))
		}
	}
	// Paging goes in steps of COUNT when field prefixes differ.
	page := hsFlat(t, p.Q.Do(t, "HSCAN", "wide", "0", "COUNT", "1"))
	if page[0] == "0" || len(page) != 1+2*1 {
		t.Errorf("first page of a hashtable hash: %q", page)
	}
	// A hashtable stays one after shrinking, so it still pages.
	del := []string{"HDEL", "big"}
	for i := 3; i < 600; i++ {
		del = append(del, fmt.Sprintf("field:%d", i))
	}
	p.Same(t, del...)
	p.Same(t, "HLEN", "big")
	hsSamePairs(t, p, "HGETALL", "big")
	if page = hsFlat(t, p.Q.Do(t, "HSCAN", "big", "0", "COUNT", "1")); page[0] == "0" {
		t.Errorf("a shrunk hashtable came whole: %q", page)
	}
	q := hsScanAll(t, p.Q, "HSCAN", "big", true, "COUNT", "1")
	r := hsScanAll(t, p.R, "HSCAN", "big", true, "COUNT", "1")
	if strings.Join(q, "\n") != strings.Join(r, "\n") {
		t.Errorf("HSCAN of a shrunk hash: qlessd %q, redis %q", q, r)
	}
}

// TestHashesRandomProperties checks HRANDFIELD's random replies by their
// properties: members of the hash, distinct for a positive count.
func TestHashesRandomProperties(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	want := map[string]string{}
	args := []string{"HSET", "h"}
	for i := 0; i < 20; i++ {
		f, v := fmt.Sprintf("f%02d", i), fmt.Sprintf("v%d", i)
		want[f] = v
		args = append(args, f, v)
	}
	c.Do(t, args...)
	for round := 0; round < 50; round++ {
		f := hsFlat(t, c.Do(t, "HRANDFIELD", "h"))
		if _, ok := want[f[0]]; !ok || len(f) != 1 {
			t.Fatalf("HRANDFIELD h = %q", f)
		}
		for _, n := range []int{1, 5, 19, 20, 25} {
			got := hsFlat(t, c.Do(t, "HRANDFIELD", "h", strconv.Itoa(n)))
			if len(got) != min(n, 20) {
				t.Fatalf("HRANDFIELD h %d gave %d fields", n, len(got))
			}
			seen := map[string]bool{}
			for _, g := range got {
				if _, ok := want[g]; !ok || seen[g] {
					t.Fatalf("HRANDFIELD h %d: %q foreign or repeated in %q", n, g, got)
				}
				seen[g] = true
			}
			wv := hsFlat(t, c.Do(t, "HRANDFIELD", "h", strconv.Itoa(n), "WITHVALUES"))
			if len(wv) != 2*min(n, 20) {
				t.Fatalf("HRANDFIELD h %d WITHVALUES gave %d items", n, len(wv))
			}
			for i := 0; i < len(wv); i += 2 {
				if want[wv[i]] != wv[i+1] {
					t.Fatalf("HRANDFIELD WITHVALUES pair %q=%q", wv[i], wv[i+1])
				}
			}
		}
		neg := hsFlat(t, c.Do(t, "HRANDFIELD", "h", "-50", "WITHVALUES"))
		if len(neg) != 100 {
			t.Fatalf("HRANDFIELD h -50 WITHVALUES gave %d items", len(neg))
		}
		for i := 0; i < len(neg); i += 2 {
			if want[neg[i]] != neg[i+1] {
				t.Fatalf("negative count pair %q=%q", neg[i], neg[i+1])
			}
		}
	}
	// Repeats do happen with a negative count larger than the hash.
	c.Do(t, "HSET", "two", "a", "1", "b", "2")
	got := hsFlat(t, c.Do(t, "HRANDFIELD", "two", "-10"))
	if len(got) != 10 {
		t.Fatalf("HRANDFIELD two -10 = %q", got)
	}
}
