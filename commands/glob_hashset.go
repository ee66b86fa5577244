package commands

// hsGlobMatch matches s against a MATCH pattern by the rules of Redis's
// stringmatchlen: '*', '?', '[...]' with '^' negation, 'a-z' ranges (either
// order) and backslash escapes, a backslash escaping the next byte anywhere.
// Bytes compare as C's signed char does in ranges, as on x86 Redis builds.
func hsGlobMatch(pattern, s []byte) bool {
	skip := false
	return hsGlob(pattern, s, &skip)
}

// hsGlob is one level of the match. skipLonger is set once a '*' has failed
// against every suffix: a longer subject cannot match either, which keeps
// patterns of many stars from exploring every split.
func hsGlob(p, s []byte, skipLonger *bool) bool {
	at := func(i int) byte { // the pattern as a NUL-terminated C string
		if i < len(p) {
			return p[i]
		}
		return 0
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && at(1) == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if hsGlob(p[1:], s, skipLonger) {
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
			var ok bool
			p, ok = hsGlobClass(p[1:], s[0])
			if !ok {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		default:
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		if len(p) > 0 {
			p = p[1:]
		}
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}

// hsGlobClass matches c against the class whose body starts at p (after
// '['). It returns the pattern positioned at the closing ']' (or the last
// byte of an unterminated class) and whether c matched.
func hsGlobClass(p []byte, c byte) ([]byte, bool) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	match := false
	for {
		if len(p) >= 2 && p[0] == '\\' {
			p = p[1:]
			if p[0] == c {
				match = true
			}
		} else if len(p) > 0 && p[0] == ']' {
			break
		} else if len(p) == 0 {
			// Unterminated: Redis steps back so the caller's advance
			// consumes the last byte; an empty rest is the same here.
			break
		} else if len(p) >= 3 && p[1] == '-' {
			lo, hi, x := int8(p[0]), int8(p[2]), int8(c)
			if lo > hi {
				lo, hi = hi, lo
			}
			p = p[2:]
			if x >= lo && x <= hi {
				match = true
			}
		} else if p[0] == c {
			match = true
		}
		p = p[1:]
	}
	if not {
		match = !match
	}
	return p, match
}
