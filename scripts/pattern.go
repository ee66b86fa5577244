package scripts

import (
	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's pattern matching, as lstrlib.c does it: a backtracking matcher
// that recurses once per pattern item, never per subject byte. gopher-lua's
// recursed per byte matched (a Go stack as deep as the subject) and found
// every match before gsub used the first, and its gsub rebuilt the whole
// result for each replacement: gsub of 1e5 matches took 13 s. Matching
// polls SCRIPT KILL, since a pattern like 'a*a*a*b' can backtrack for
// hours, and errors read as Lua 5.1's.

const (
	maxCaptures  = 32 // LUA_MAXCAPTURES
	capUnclosed  = -1 // CAP_UNFINISHED
	capPosition  = -2 // CAP_POSITION
	patternEsc   = '%'
	patternSpecs = "^$*+?.([%-" // SPECIALS: without them find searches plainly
	// maxMatchDepth bounds the matcher's recursion (one level per pattern
	// item): Lua 5.1 has no bound and overflows the C stack first.
	maxMatchDepth = 100000
)

type capture struct{ init, len int }

// matchState is one match of pat against src; positions are byte offsets.
type matchState struct {
	L       *lua.LState
	src     string
	pat     string // up to its first NUL, where Lua's C string ends
	level   int
	capture [maxCaptures]capture
	depth   int
	steps   int
}

func newMatchState(L *lua.LState, src, pat string) *matchState {
	for i := 0; i < len(pat); i++ {
		if pat[i] == 0 {
			pat = pat[:i]
			break
		}
	}
	return &matchState{L: L, src: src, pat: pat}
}

// at is the pattern byte at p, or NUL at its end.
func (ms *matchState) at(p int) byte {
	if p < len(ms.pat) {
		return ms.pat[p]
	}
	return 0
}

// srcAt is the subject byte at s, or NUL at its end (Lua strings have one).
func (ms *matchState) srcAt(s int) byte {
	if s < len(ms.src) {
		return ms.src[s]
	}
	return 0
}

func (ms *matchState) step() {
	if ms.steps++; ms.steps%(4*limits.Every) == 0 {
		limits.Poll(ms.L)
	}
}

// classEnd is the position after the single-character class at p.
func (ms *matchState) classEnd(p int) int {
	c := ms.at(p)
	p++
	switch c {
	case patternEsc:
		if p >= len(ms.pat) {
			clua.Raise(ms.L, "malformed pattern (ends with '%%')")
		}
		return p + 1
	case '[':
		if ms.at(p) == '^' {
			p++
		}
		for {
			if p >= len(ms.pat) {
				clua.Raise(ms.L, "malformed pattern (missing ']')")
			}
			c := ms.pat[p]
			p++
			if c == patternEsc && p < len(ms.pat) {
				p++
			}
			if ms.at(p) == ']' {
				return p + 1
			}
		}
	}
	return p
}

// matchClass is match_class: %a, %d... in the C locale (ASCII only); an
// upper-case class is the complement, any other letter itself.
func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 32 || c == 127
	case 'd':
		res = isDigit(c)
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = c > 32 && c < 127 && !isAlpha(c) && !isDigit(c)
	case 's':
		res = c == ' ' || (c >= '\t' && c <= '\r')
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isAlpha(c) || isDigit(c)
	case 'x':
		res = isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// matchBracket is matchbracketclass: p is at '[', ec at its ']'.
func (ms *matchState) matchBracket(c byte, p, ec int) bool {
	sig := true
	if ms.at(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.pat[p] == patternEsc:
			p++
			if matchClass(c, ms.at(p)) {
				return sig
			}
		case ms.at(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.pat[p-2] <= c && c <= ms.pat[p] {
				return sig
			}
		case ms.pat[p] == c:
			return sig
		}
	}
	return !sig
}

// singleMatch reports whether the subject byte at s matches the class at
// p (ending at ep); false at the subject's end.
func (ms *matchState) singleMatch(s, p, ep int) bool {
	if s >= len(ms.src) {
		return false
	}
	c := ms.src[s]
	switch ms.pat[p] {
	case '.':
		return true
	case patternEsc:
		return matchClass(c, ms.pat[p+1])
	case '[':
		return ms.matchBracket(c, p, ep-1)
	}
	return ms.pat[p] == c
}

// match is the matcher: the end of the match of pat[p:] at src[s:], or -1.
func (ms *matchState) match(s, p int) int {
	if ms.depth++; ms.depth > maxMatchDepth {
		clua.Raise(ms.L, "pattern too complex")
	}
	defer func() { ms.depth-- }()
	for {
		ms.step()
		switch ms.at(p) {
		case '(':
			if ms.at(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnclosed)
		case ')':
			return ms.endCapture(s, p+1)
		case 0:
			if p >= len(ms.pat) {
				return s
			}
		case '$':
			if p+1 == len(ms.pat) {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		case patternEsc:
			if ns, np, ok := ms.escape(s, p); ok {
				if ns < 0 {
					return -1
				}
				s, p = ns, np
				continue
			}
		}
		ep := ms.classEnd(p)
		m := ms.singleMatch(s, p, ep)
		switch ms.at(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res >= 0 {
					return res
				}
			}
			p = ep + 1
			continue
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		}
		if !m {
			return -1
		}
		s, p = s+1, ep
	}
}

// escape matches %b, %f and %1-%9 at s (the '%' at p): where the subject
// and the pattern go on (ns < 0 when they do not match), or ok false for
// a class (%a...), which match treats as any single character class.
func (ms *matchState) escape(s, p int) (ns, np int, ok bool) {
	switch next := ms.at(p + 1); {
	case next == 'b':
		return ms.matchBalance(s, p+2), p + 4, true
	case next == 'f':
		np := ms.frontier(s, p+2)
		if np < 0 {
			return -1, 0, true
		}
		return s, np, true
	case isDigit(next):
		return ms.matchCapture(s, next), p + 2, true
	}
	return s, p, false
}

// frontier is %f[set] at s, its set at p: the position after the set, or
// -1 when s is not where the set starts to match.
func (ms *matchState) frontier(s, p int) int {
	if ms.at(p) != '[' {
		clua.Raise(ms.L, "missing '[' after '%%f' in pattern")
	}
	ep := ms.classEnd(p)
	var prev byte
	if s > 0 {
		prev = ms.src[s-1]
	}
	if ms.matchBracket(prev, p, ep-1) || !ms.matchBracket(ms.srcAt(s), p, ep-1) {
		return -1
	}
	return ep
}

func (ms *matchState) matchBalance(s, p int) int {
	if p+1 >= len(ms.pat) {
		clua.Raise(ms.L, "unbalanced pattern")
	}
	if ms.srcAt(s) != ms.pat[p] {
		return -1
	}
	open, closing, depth := ms.pat[p], ms.pat[p+1], 1
	for s++; s < len(ms.src); s++ {
		if s%limits.Every == 0 {
			ms.step()
		}
		switch ms.src[s] {
		case closing:
			if depth--; depth == 0 {
				return s + 1
			}
		case open:
			depth++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for ms.singleMatch(s+i, p, ep) {
		if i++; i%limits.Every == 0 {
			ms.step()
		}
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if !ms.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	if ms.level >= maxCaptures {
		clua.Raise(ms.L, "too many captures")
	}
	ms.capture[ms.level] = capture{init: s, len: what}
	ms.level++
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := -1
	for i := ms.level - 1; i >= 0; i-- {
		if ms.capture[i].len == capUnclosed {
			l = i
			break
		}
	}
	if l < 0 {
		clua.Raise(ms.L, "invalid pattern capture")
	}
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnclosed
	}
	return res
}

// matchCapture is %1-%9 in a pattern: the text capture n matched, again.
func (ms *matchState) matchCapture(s int, digit byte) int {
	l := int(digit) - '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnclosed {
		clua.Raise(ms.L, "invalid capture index")
	}
	c := ms.capture[l]
	if c.len < 0 || len(ms.src)-s < c.len || ms.src[s:s+c.len] != ms.src[c.init:c.init+c.len] {
		return -1
	}
	return s + c.len
}

// captureValue is push_onecapture: capture i of the match src[s:e] (the
// whole match when there are no captures).
func (ms *matchState) captureValue(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i != 0 {
			clua.Raise(ms.L, "invalid capture index")
		}
		return lua.LString(ms.src[s:e])
	}
	c := ms.capture[i]
	switch c.len {
	case capUnclosed:
		clua.Raise(ms.L, "unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures of the match src[s:e] (or the match
// itself), or with s < 0 only the captures (find's); it returns how many.
func (ms *matchState) pushCaptures(s, e int) int {
	n := ms.level
	if n == 0 && s >= 0 {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.captureValue(i, s, e))
	}
	return n
}
