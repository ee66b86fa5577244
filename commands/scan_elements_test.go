package commands

import (
	"math/rand/v2"
	"testing"
)

// A paged scan resumes from elemCursorStart(elemCursorOf(next)): every element
// whose cursor is at least the resumed one must sort at or after the resume
// point, and every element with a smaller cursor before it.
func TestScanCursorResumesWithoutSkipping(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = "\x00\x01ab\xff"[rng.IntN(5)]
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		next, other := gen(), gen()
		cur := elemCursorOf(next)
		from, ok := elemCursorStart(cur)
		if !ok || from > next {
			t.Fatalf("cursor of %q resumes at %q", next, from)
		}
		if oc := elemCursorOf(other); oc >= cur && other < from {
			t.Fatalf("%q (cursor %d) sorts before resume point %q (cursor %d)", other, oc, from, cur)
		} else if oc < cur && other >= from {
			t.Fatalf("%q (cursor %d) sorts after resume point %q (cursor %d)", other, oc, from, cur)
		}
	}
	if _, ok := elemCursorStart(1<<56 + 1); ok {
		t.Error("a cursor past every prefix should end the scan")
	}
}

func TestHsParseCursor(t *testing.T) {
	for in, want := range map[string]uint64{"": 0, "0": 0, "+7": 7, "-0": 0, "-1": 1<<64 - 1, "007": 7,
		"18446744073709551615": 1<<64 - 1} {
		if got, ok := ParseCursor([]byte(in)); !ok || got != want {
			t.Errorf("cursor %q = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"-", "+", " 1", "1 ", "0x1", "1.0", "18446744073709551616", "a"} {
		if _, ok := ParseCursor([]byte(in)); ok {
			t.Errorf("cursor %q accepted", in)
		}
	}
}

func TestGlobMatchScanCases(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", false}, {"", "", true}, {"a*", "a", true}, {"*a", "ba", true}, {"a?c", "abc", true},
		{"a?c", "ac", false}, {"[abc]", "b", true}, {"[^abc]", "b", false}, {"[a-c]x", "bx", true},
		{"[c-a]x", "bx", true}, {"a\\*", "a*", true}, {"a\\*", "ab", false}, {"[\\]]", "]", true},
		{"a[", "a", false}, {"a[b", "ab", true}, {"x[\x80-\xff]", "x\x90", true}, {"x[a-\xff]", "xb", false},
		{"*o*a*", "foobar", true}, {"h*llo", "heeello", true}, {"**x", "x", true},
	} {
		if got := GlobMatch([]byte(c.pat), []byte(c.s), false); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
}
