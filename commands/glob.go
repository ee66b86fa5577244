package commands

// GlobMatch reports whether s matches the glob pattern as Redis's
// stringmatchlen does for KEYS, SCAN MATCH, PSUBSCRIBE and the like:
// '*' any run, '?' one byte, '[...]' a class with '^' negation, 'a-z'
// ranges (either order) and backslash escapes, and '\x' a literal x.
// Quirks kept on purpose so results equal Redis's: bytes compare as signed
// C chars inside ranges, and an unterminated class runs to the end of the
// pattern.
//
// Pattern and subject may each be a string or a []byte, so callers holding
// either never copy one into the other (PUBLISH matches every pattern).
func GlobMatch[P, S string | []byte](pattern P, s S, nocase bool) bool {
	g := globState[P, S]{p: pattern, s: s, nocase: nocase}
	return g.match(0, 0)
}

type globState[P, S string | []byte] struct {
	p      P
	s      S
	nocase bool
	// giveUp is set once a '*' failed to place the rest of the pattern
	// anywhere: an earlier '*' taking more bytes cannot help, so the
	// search ends early (Redis does the same to bound the work).
	giveUp bool
}

// at returns the pattern byte at i, or 0 past the end as C's terminator.
func (g *globState[P, S]) at(i int) byte {
	if i < len(g.p) {
		return g.p[i]
	}
	return 0
}

func (g *globState[P, S]) fold(c byte) int {
	if g.nocase && c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return int(int8(c))
}

func (g *globState[P, S]) match(pi, si int) bool {
	for pi < len(g.p) && si < len(g.s) {
		switch g.p[pi] {
		case '*':
			for pi < len(g.p) && g.at(pi+1) == '*' {
				pi++
			}
			if pi == len(g.p)-1 {
				return true
			}
			for si < len(g.s) {
				if g.match(pi+1, si) {
					return true
				}
				if g.giveUp {
					return false
				}
				si++
			}
			g.giveUp = true
			return false
		case '?':
			si++
		case '[':
			var ok bool
			pi, ok = g.class(pi+1, g.s[si])
			if !ok {
				return false
			}
			si++
		default:
			if g.p[pi] == '\\' && len(g.p)-pi >= 2 {
				pi++
			}
			if g.fold(g.p[pi]) != g.fold(g.s[si]) {
				return false
			}
			si++
		}
		pi++
		if si == len(g.s) {
			for g.at(pi) == '*' {
				pi++
			}
			break
		}
	}
	return pi >= len(g.p) && si == len(g.s)
}

// class matches c against the class starting at pi (just past '['). It
// returns the index of the closing ']' (or of the last pattern byte when
// the class is unterminated) and whether c matched.
func (g *globState[P, S]) class(pi int, c byte) (int, bool) {
	not := g.at(pi) == '^'
	if not {
		pi++
	}
	match := false
	cc := g.fold(c)
	for {
		rest := len(g.p) - pi
		switch {
		case g.at(pi) == '\\' && rest >= 2:
			pi++
			if g.p[pi] == c {
				match = true
			}
		case g.at(pi) == ']':
			return pi, match != not
		case rest <= 0:
			return pi - 1, match != not
		case rest >= 3 && g.p[pi+1] == '-':
			lo, hi := int(int8(g.p[pi])), int(int8(g.p[pi+2]))
			if lo > hi {
				lo, hi = hi, lo
			}
			if g.nocase {
				lo, hi = g.fold(byte(lo)), g.fold(byte(hi))
			}
			cv := int(int8(c))
			if g.nocase {
				cv = cc
			}
			if cv >= lo && cv <= hi {
				match = true
			}
			pi += 2
		default:
			if g.fold(g.p[pi]) == cc {
				match = true
			}
		}
		pi++
	}
}
