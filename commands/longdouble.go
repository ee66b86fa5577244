package commands

import (
	"math/big"
	"strings"
)

// INCRBYFLOAT and HINCRBYFLOAT compute in C long double (x87 80-bit: 64-bit mantissa, 15-bit
// exponent) and prints with "%.17Lf". A 64-bit big.Float rounds as that type
// does, so results print digit for digit as Redis's do (0.1+0.2 is "0.3").
const (
	ldPrec        = 64
	ldMaxExp      = 16384  // big.Float MantExp of LDBL_MAX
	ldMinExp      = -16445 // MantExp of half the smallest denormal, the least that rounds up to it
	ldMaxStrLen   = 5*1024 - 1
	ldDecExpLimit = 5000 // decimal exponents beyond this are out of range
)

func newLongDouble() *big.Float {
	return new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven)
}

// parseLongDouble parses as Redis's string2ld: strtold syntax (decimal, hex,
// inf) with nothing around it, no NaN, no overflow and no underflow to zero.
func parseLongDouble(b []byte) (*big.Float, bool) {
	s := string(b)
	if len(s) == 0 || len(s) > ldMaxStrLen {
		return nil, false
	}
	f := newLongDouble()
	body := s
	neg := false
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	if l := strings.ToLower(body); l == "inf" || l == "infinity" {
		return f.SetInf(neg), true
	}
	hex := len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	var mag int64 // rough magnitude: decimal digits or binary digits before the point
	var ok, zero bool
	if hex {
		mag, zero, ok = ldScanNumber(body[2:], true)
	} else {
		mag, zero, ok = ldScanNumber(body, false)
	}
	if !ok {
		return nil, false
	}
	if zero {
		if neg {
			return f.Neg(f), true
		}
		return f, true
	}
	if hex {
		if mag > ldMaxExp+8 || mag < ldMinExp-8 {
			return nil, false
		}
		if _, _, err := f.Parse(s, 0); err != nil {
			return nil, false
		}
	} else {
		if mag > ldDecExpLimit || mag < -ldDecExpLimit {
			return nil, false
		}
		if _, _, err := f.Parse(s, 10); err != nil {
			return nil, false
		}
	}
	mant := newLongDouble()
	e := f.MantExp(mant)
	if e > ldMaxExp || e < ldMinExp || (e == ldMinExp && mant.Abs(mant).Cmp(big.NewFloat(0.5)) == 0) {
		return nil, false // overflow, or underflow to zero (a tie rounds to even)
	}
	return f, true
}

// ldScanNumber checks digits [. digits] [exp] (hex digits and a 'p'
// exponent when hex) and returns the position of the leading nonzero digit
// relative to the point plus the exponent, in decimal or binary digits, and
// whether every digit is zero.
func ldScanNumber(s string, hex bool) (mag int64, zero, ok bool) {
	isDigit := func(c byte) bool {
		if hex {
			return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
		}
		return c >= '0' && c <= '9'
	}
	unit := int64(1)
	if hex {
		unit = 4
	}
	i, digits := 0, int64(0)
	first := int64(-1) // index of the first nonzero digit
	pos := int64(0)    // digits before the point
	point := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' && !point {
			point = true
			continue
		}
		if !isDigit(c) {
			break
		}
		if c != '0' && first < 0 {
			first = digits
		}
		digits++
		if !point {
			pos++
		}
	}
	if digits == 0 {
		return 0, false, false
	}
	var exp int64
	if i < len(s) {
		c := s[i] | 0x20
		if (hex && c != 'p') || (!hex && c != 'e') {
			return 0, false, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return 0, false, false
		}
		for ; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false, false
			}
			if exp < 1<<40 {
				exp = exp*10 + int64(s[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if first < 0 {
		return 0, true, true
	}
	mag = (pos - first) * unit
	return mag + exp, false, true
}

// addLongDouble returns a+b as a new value, or false when an operand is
// infinite or the sum overflows: INCRBYFLOAT's and HINCRBYFLOAT's "would
// produce NaN or Infinity".
func addLongDouble(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	sum := newLongDouble().Add(a, b)
	if longDoubleOverflows(sum) {
		return nil, false
	}
	return sum, true
}

// longDoubleOverflows reports whether f is beyond long double range (inf).
func longDoubleOverflows(f *big.Float) bool {
	return f.IsInf() || f.MantExp(nil) > ldMaxExp
}

// formatLongDouble prints as Redis's ld2string in human mode: "%.17Lf" with
// trailing zeros (and a bare point) removed, and "-0" as "0".
func formatLongDouble(f *big.Float) string {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
