package server

// globMatch reports whether s matches the glob pattern p with the rules of
// Redis's stringmatchlen: '*', '?', '[...]' classes with '^' negation and
// 'a-z' ranges, and '\' escapes. Bytes compare as signed chars, as in C.
func globMatch(p, s string) bool {
	skip := false
	return globAt(p, s, &skip)
}

// globAt matches p against s. skip is set once a '*' has tried every
// suffix of s without success: no longer suffix can then succeed either,
// which keeps patterns like "*a*a*a*b" from taking exponential time.
func globAt(p, s string, skip *bool) bool {
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
				if globAt(p[1:], s, skip) {
					return true
				}
				if *skip {
					return false
				}
				s = s[1:]
			}
			*skip = true
			return false
		case '?':
			s = s[1:]
		case '[':
			var ok bool
			p, ok = globClass(p[1:], s[0])
			if !ok {
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

// globClass matches c against the class starting after '['. It returns the
// pattern positioned on the class's closing ']' (or its last byte when the
// class is unterminated) and whether c matched.
func globClass(p string, c byte) (string, bool) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	match := false
	for {
		switch {
		case len(p) >= 2 && p[0] == '\\':
			p = p[1:]
			if p[0] == c {
				match = true
			}
		case len(p) > 0 && p[0] == ']':
			return p, match != not
		case len(p) == 0:
			// Unterminated: Redis steps back so the caller's advance ends
			// the pattern.
			return " ", match != not
		case len(p) >= 3 && p[1] == '-':
			lo, hi, v := int(int8(p[0])), int(int8(p[2])), int(int8(c))
			if lo > hi {
				lo, hi = hi, lo
			}
			p = p[2:]
			if v >= lo && v <= hi {
				match = true
			}
		default:
			if p[0] == c {
				match = true
			}
		}
		p = p[1:]
	}
}
