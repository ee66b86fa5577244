package commands

import "testing"

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		want   bool
	}{
		{"*", "", false}, // callers special-case a lone "*"
		{"*", "anything", true},
		{"", "", true},
		{"", "a", false},
		{"a", "", false},
		{"h?llo", "hello", true},
		{"h?llo", "hllo", false},
		{"h*llo", "hllo", true},
		{"h*llo", "heeeello", true},
		{"h[ae]llo", "hallo", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-b]llo", "hbllo", true},
		{"h[b-a]llo", "hallo", true}, // reversed range
		{"h[a-b]llo", "hcllo", false},
		{`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false},
		{`[\]]`, "]", true},
		{`[\-]`, "-", true},
		{"[abc", "b", true}, // unterminated class runs to the end
		{"[abc", "bc", false},
		{"[", "", false},
		{"a*", "a", true},
		{"a**b", "ab", true},
		{"*a*b*", "xxaxxbxx", true},
		{"*a*b*", "xxbxxaxx", false},
		{"a\\", "a\\", true}, // a trailing backslash is literal
		{"?", "", false},
		{"**", "", false},
		{"a*", "", false},
		{"[a-]", "-", false}, // a range up to ']', unterminated
		{"[a-]", "^", true},
		{"[]", "]", false},
		{"[]]", "]", false},
		{"x[^]", "x", false},
		{"\xe9", "\xe9", true},
		{"[\x80-\xff]", "\x90", true},
		{"[a-\xff]", "\x90", false}, // signed bytes: the range is -1..'a'
		{"[a-\xff]", "\xff", true},
		{"[a-\xff]", "A", true},
		{"[a-\xff]", "b", false},
		{"*[", "a", false},
		{"*?*?*", "ab", true},
		{"*?*?*", "a", false},
		{"a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, c := range cases {
		if got := GlobMatch([]byte(c.pat), []byte(c.s), false); got != c.want {
			t.Errorf("GlobMatch(%q, %q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
}

func TestGlobMatchNoCase(t *testing.T) {
	if !GlobMatch([]byte("H[A-C]llo"), []byte("hbLLO"), true) {
		t.Error("nocase range")
	}
	if GlobMatch([]byte("H[A-C]llo"), []byte("hbLLO"), false) {
		t.Error("case-sensitive range")
	}
}

// PUBLISH matches every subscribed pattern against the channel: that must
// not allocate.
func TestGlobMatchStringsDoNotAllocate(t *testing.T) {
	pattern, channel := "ql:*", "ql:log"
	if n := testing.AllocsPerRun(100, func() { GlobMatch(pattern, channel, false) }); n != 0 {
		t.Fatalf("GlobMatch on strings allocates %v times per call", n)
	}
}
