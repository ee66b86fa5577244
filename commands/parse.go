package commands

import (
	"math"
	"strconv"
	"strings"
)

// ParseInt parses a 64-bit integer exactly as Redis's string2ll: optional
// '-', no '+', no spaces, no leading zeros, no overflow.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n > 20 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i = 1
		if n == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseFloat parses a double as Redis's getDoubleFromObject: strtod syntax
// (inf, exponents, hex), no surrounding spaces, no NaN, no overflow.
func ParseFloat(b []byte) (float64, bool) {
	s := string(b)
	if len(s) == 0 || isSpace(s[0]) || isSpace(s[len(s)-1]) || strings.ContainsRune(s, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// strtod accepts a hex mantissa without a 'p' exponent; Go does not.
		if ls := strings.ToLower(s); strings.Contains(ls, "0x") && !strings.Contains(ls, "p") {
			if f2, err2 := strconv.ParseFloat(s+"p0", 64); err2 == nil {
				return f2, true
			}
		}
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	if l := strings.ToLower(strings.TrimLeft(s, "+-")); math.IsInf(f, 0) && l != "inf" && l != "infinity" {
		return 0, false
	}
	return f, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// EqualFold compares an argument with a lowercase keyword.
func EqualFold(arg []byte, lower string) bool {
	if len(arg) != len(lower) {
		return false
	}
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
