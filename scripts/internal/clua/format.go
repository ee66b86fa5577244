package clua

import (
	"math"
	"strconv"
	"strings"
)

// FormatG formats v as C's printf("%.<prec>g") does with glibc.
func FormatG(v float64, prec int) string {
	return string(AppendG(nil, v, prec))
}

// AppendG appends v formatted as C's "%.<prec>g".
func AppendG(dst []byte, v float64, prec int) []byte {
	if prec <= 0 {
		prec = 1
	}
	if s, ok := NonFinite(v); ok {
		return append(dst, s...)
	}
	// C picks the style from the exponent of the %e conversion at the
	// requested precision, so round first and look at that exponent.
	var buf [40]byte
	e := strconv.AppendFloat(buf[:0], v, 'e', prec-1, 64)
	ep := strings.LastIndexByte(string(e), 'e')
	exp, _ := strconv.Atoi(string(e[ep+1:]))
	if exp < -4 || exp >= prec {
		mant := trimZeros(e[:ep])
		dst = append(dst, mant...)
		return append(dst, e[ep:]...)
	}
	f := strconv.AppendFloat(buf[:0], v, 'f', prec-1-exp, 64)
	return append(dst, trimZeros(f)...)
}

// NonFinite spells infinities and NaN as glibc's printf does in lower
// case; ok is false for a finite v.
func NonFinite(v float64) (s string, ok bool) {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan", true
		}
		return "nan", true
	case math.IsInf(v, 1):
		return "inf", true
	case math.IsInf(v, -1):
		return "-inf", true
	}
	return "", false
}

// trimZeros drops trailing fraction zeros and a bare decimal point.
func trimZeros(b []byte) []byte {
	if strings.IndexByte(string(b), '.') < 0 {
		return b
	}
	i := len(b)
	for i > 0 && b[i-1] == '0' {
		i--
	}
	if i > 0 && b[i-1] == '.' {
		i--
	}
	return b[:i]
}
