package scripts

import (
	"math"
	"strconv"
	"strings"
)

// fmtNumber renders a Lua number as Lua 5.1 does (LUA_NUMBER_FMT "%.14g"
// through glibc printf), which gopher-lua's own formatting does not.
func fmtNumber(f float64) string {
	return cFormatG(f, 14, false)
}

// cFormatG is C's %.<prec>g (or %G when upper).
func cFormatG(f float64, prec int, upper bool) string {
	if s, ok := nonFinite(f, upper); ok {
		return s
	}
	if prec == 0 {
		prec = 1
	}
	s := strconv.FormatFloat(f, 'g', prec, 64)
	if upper {
		s = strings.ToUpper(s)
	}
	return s
}

// nonFinite spells infinities and NaN as glibc's printf does.
func nonFinite(f float64, upper bool) (string, bool) {
	var s string
	switch {
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	case math.IsNaN(f):
		s = "nan"
		if math.Signbit(f) {
			s = "-nan"
		}
	default:
		return "", false
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s, true
}

// fmtArgNumber renders a number passed to redis.call as Redis 7.0 does
// (%.17g), so 0.1 travels as 0.10000000000000001 and 1e20 as 1e+20.
func fmtArgNumber(f float64) string {
	return cFormatG(f, 17, false)
}

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// str2number converts a string as Lua 5.1's luaO_str2d does on glibc:
// strtod (decimal, hex, inf, nan), then a hexadecimal integer fallback,
// surrounding whitespace allowed and nothing else.
func str2number(s string) (float64, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	f, n := strtod(s[i:])
	if n == 0 {
		return 0, false
	}
	j := i + n
	if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
		// "0x" with nothing strtod would take: Lua retries with strtoul base 16.
		u, m := strtoul16(s[i:])
		if m == 0 {
			return 0, false
		}
		f, j = u, i+m
	}
	for j < len(s) && isCSpace(s[j]) {
		j++
	}
	if j != len(s) {
		return 0, false
	}
	return f, true
}

// strtod parses the longest prefix of s that glibc's strtod accepts and
// returns its value and length (0 when nothing was taken).
func strtod(s string) (float64, int) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := strings.ToLower(s[i:])
	sign := 1.0
	if neg {
		sign = -1
	}
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return math.Inf(int(sign)), i + 8
	case strings.HasPrefix(rest, "inf"):
		return math.Inf(int(sign)), i + 3
	case strings.HasPrefix(rest, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			k := n + 1
			for k < len(s) && (isAlnum(s[k]) || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				n = k + 1
			}
		}
		nan := math.NaN()
		if neg {
			nan = math.Copysign(nan, -1)
		}
		return nan, n
	case len(rest) >= 2 && rest[0] == '0' && rest[1] == 'x':
		if f, n := hexFloat(s[i+2:]); n > 0 {
			return sign * f, i + 2 + n
		}
		// Only the "0" is a number.
		return 0 * sign, i + 1
	}
	start := i
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		k := i + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			i = k
		}
	}
	f, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return 0, 0
	}
	return sign * f, i
}

// hexFloat parses hex digits, an optional fraction and an optional binary
// exponent, as strtod does after "0x".
func hexFloat(s string) (float64, int) {
	i := 0
	var mant float64
	digits := 0
	for i < len(s) && isHex(s[i]) {
		mant = mant*16 + float64(hexVal(s[i]))
		i++
		digits++
	}
	exp := 0
	if i < len(s) && s[i] == '.' {
		k := i + 1
		for k < len(s) && isHex(s[k]) {
			mant = mant*16 + float64(hexVal(s[k]))
			exp -= 4
			k++
			digits++
		}
		if digits > 0 {
			i = k
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if i < len(s) && (s[i] == 'p' || s[i] == 'P') {
		k := i + 1
		eneg := false
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			eneg = s[k] == '-'
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			e := 0
			for k < len(s) && isDigit(s[k]) {
				if e < 100000 {
					e = e*10 + int(s[k]-'0')
				}
				k++
			}
			if eneg {
				e = -e
			}
			exp += e
			i = k
		}
	}
	return math.Ldexp(mant, exp), i
}

// strtoul16 is strtoul(s, 16) as Lua's fallback uses it: optional sign and
// "0x" prefix, then hex digits; the value wraps like unsigned long.
func strtoul16(s string) (float64, int) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && isHex(s[i+2]) {
		i += 2
	}
	start := i
	var v uint64
	over := false
	for i < len(s) && isHex(s[i]) {
		nv := v*16 + uint64(hexVal(s[i]))
		if nv/16 != v {
			over = true
		}
		v = nv
		i++
	}
	if i == start {
		return 0, 0
	}
	if over {
		v = math.MaxUint64
	}
	if neg {
		v = -v
	}
	return float64(v), i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
func isAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
func hexVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}
