package commands

// zsetGlobMatch matches s against a glob pattern with the rules of Redis's
// stringmatchlen (case-sensitive): '*', '?', '[...]' with '^' negation and
// ranges (reversed ranges swapped), '\' escapes. Bytes compare as signed
// chars, as in C. A later merge unifies this with the shared glob.
func zsetGlobMatch(pattern, s string) bool {
	skip := false
	return globMatchZ(pattern, s, &skip)
}

func globMatchZ(p, s string, skipLonger *bool) bool {
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if globMatchZ(p[1:], s, skipLonger) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			c := int8(s[0])
			for {
				if len(p) >= 2 && p[0] == '\\' {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if len(p) > 0 && p[0] == ']' {
					break
				} else if len(p) == 0 {
					// Unterminated class: Redis steps back so the outer
					// advance lands on the end of the pattern.
					p = " "
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi := int8(p[0]), int8(p[2])
					if lo > hi {
						lo, hi = hi, lo
					}
					if c >= lo && c <= hi {
						match = true
					}
					p = p[2:]
				} else if p[0] == s[0] {
					match = true
				}
				p = p[1:]
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}
