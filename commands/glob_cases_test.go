package commands

import "testing"

func TestGlobMatchRedisCases(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{ // expectations checked against redis-server's ZSCAN MATCH

		{"*", "", false}, {"**", "", false}, {"", "", true}, {"", "a", false}, {"a*", "abc", true}, {"*c", "abc", true},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"[a-c]x", "bx", true}, {"[c-a]x", "bx", true},
		{"[^a-c]x", "bx", false}, {"[^a-c]x", "dx", true}, {`a\*`, "a*", true}, {`a\*`, "ab", false},
		{"a[", "a", false}, {"a[", "ab", false}, {"[]]", "]", false}, {"[a-]", "]", true}, {`[\]]`, "]", true}, {"**a**", "xa", true},
		{"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {"ab\\", "ab\\", true}, {"[a-]", "-", false},
		{"[\xff-a]", "b", false}, {"[\xff-a]", "\x00", true},
	} {
		if got := GlobMatch([]byte(c.pat), []byte(c.s), false); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
}
