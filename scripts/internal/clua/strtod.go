package clua

import (
	"math"
	"strconv"
	"strings"
)

// IsSpace reports C isspace in the "C" locale.
func IsSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Strtod parses the longest prefix of s that glibc's strtod accepts and
// returns its value and length; n is 0 when nothing was converted.
// Overflow gives ±Inf and underflow 0 or a subnormal, as strtod does.
func Strtod(s string) (v float64, n int) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "inf"):
		i += 3
		if hasPrefixFold(s[i:], "inity") {
			i += 5
		}
		return signed(math.Inf(1), neg), i
	case hasPrefixFold(rest, "nan"):
		i += 3
		if i < len(s) && s[i] == '(' {
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || s[j] == '_' || (s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z')) {
				j++
			}
			if j < len(s) && s[j] == ')' {
				i = j + 1
			}
		}
		return signed(math.NaN(), neg), i
	case len(rest) >= 3 && rest[0] == '0' && rest[1]|0x20 == 'x' &&
		(isHex(rest[2]) || (rest[2] == '.' && len(rest) >= 4 && isHex(rest[3]))):
		v, m := parseHex(rest[2:])
		return signed(v, neg), i + 2 + m
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
	if i < len(s) && s[i]|0x20 == 'e' {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	v, _ = strconv.ParseFloat(s[start:i], 64)
	return signed(v, neg), i
}

// parseHex reads hex digits, an optional fraction and a binary exponent.
func parseHex(s string) (float64, int) {
	i := 0
	for i < len(s) && isHex(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isHex(s[i]) {
			i++
		}
	}
	mant := s[:i]
	exp := "0"
	if i < len(s) && s[i]|0x20 == 'p' {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			exp = s[i+1 : j]
			i = j
		}
	}
	if strings.HasSuffix(mant, ".") {
		mant += "0"
	}
	if strings.HasPrefix(mant, ".") {
		mant = "0" + mant
	}
	v, _ := strconv.ParseFloat("0x"+mant+"p"+exp, 64)
	return v, i
}

func signed(v float64, neg bool) float64 {
	if neg {
		return -v
	}
	return v
}

// Str2d converts a string as Lua 5.1's lua_tonumber does: the whole string
// (up to a NUL byte) must be a number, surrounding white space allowed.
func Str2d(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	v, n := Strtod(s)
	if n == 0 {
		return 0, false
	}
	for n < len(s) && IsSpace(s[n]) {
		n++
	}
	return v, n == len(s)
}
