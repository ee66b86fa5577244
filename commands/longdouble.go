package commands

import (
	"math"
	"math/big"
	"strings"
)

// INCRBYFLOAT computes in C long double, which on x86-64 is the x87
// extended format: a 64-bit mantissa and a 15-bit exponent. Redis 7.0
// prints the result with "%.17Lf" and trims trailing zeros, so emulating
// that format (not float64) is what makes "INCRBYFLOAT k 0.1" twice reply
// "0.2" as Redis does.
const (
	ldPrec   = 64
	ldMaxExp = 16384  // big.Float exponent of LDBL_MAX (mantissa in [0.5, 1))
	ldMinExp = -16444 // exponent of the smallest denormal, 2^-16445
	// maxLongDoubleChars caps the input as Redis's string2ld does.
	maxLongDoubleChars = 5 * 1024
)

// longDouble is an x87 extended value; inf marks ±Inf (the sign in neg).
type longDouble struct {
	f   *big.Float
	inf bool
	neg bool
}

func newLD() *big.Float { return new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven) }

// parseLongDouble reads a number as Redis's string2ld: strtold syntax with
// no leading space, no trailing bytes, no NaN, and no overflow or
// underflow to zero.
func parseLongDouble(b []byte) (longDouble, bool) {
	s := string(b)
	if len(s) == 0 || len(s) >= maxLongDoubleChars || isSpace(s[0]) {
		return longDouble{}, false
	}
	body := s
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return longDouble{inf: true, neg: neg}, true
	}
	lower := strings.ToLower(body)
	if strings.HasPrefix(lower, "0x") {
		// Hex input is rare enough to go through float64.
		f, ok := ParseFloat(b)
		if !ok || math.IsInf(f, 0) {
			return longDouble{}, false
		}
		return longDouble{f: newLD().SetFloat64(f)}, true
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return longDouble{}, false
		}
	}
	f, _, err := newLD().Parse(s, 10)
	if err != nil {
		return longDouble{}, false
	}
	if f.Sign() != 0 {
		exp := f.MantExp(nil)
		if exp > ldMaxExp || exp < ldMinExp-1 {
			return longDouble{}, false
		}
	}
	return longDouble{f: f}, true
}

// addLongDouble returns a+b, or false when the sum is NaN or infinite.
func addLongDouble(a, b longDouble) (longDouble, bool) {
	if a.inf || b.inf {
		return longDouble{}, false
	}
	sum := newLD().Add(a.f, b.f)
	if sum.Sign() != 0 && sum.MantExp(nil) > ldMaxExp {
		return longDouble{}, false
	}
	return longDouble{f: sum}, true
}

// formatLongDouble prints as Redis's ld2string in human mode: "%.17Lf",
// trailing zeros and a bare '.' removed, "-0" written as "0".
func formatLongDouble(v longDouble) string {
	s := v.f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
