package qless

import (
	"math"
	"strconv"
)

// fixed20 is strconv.FormatFloat(v, 'f', 20, 64), the text of qless's
// string.format('%.20f', now) for job times. strconv takes its slow
// multi-precision path for twenty decimals (every put, pop and complete
// writes one); a float of at least 1 and below 2^53 has at most 52
// fraction bits, so its exact decimal expansion is worked out here in one
// machine word, rounded half to even at the twentieth digit as strconv
// rounds exact decimals.
func fixed20(v float64) string {
	if !(v >= 1 && v < 1<<53) {
		return strconv.FormatFloat(v, 'f', 20, 64)
	}
	bits := math.Float64bits(v)
	exp := int(bits>>52&0x7ff) - 1075 // v = mant * 2^exp
	mant := bits&(1<<52-1) | 1<<52
	var whole, frac uint64
	shift := uint(0)
	if exp >= 0 {
		whole = mant << uint(exp)
	} else {
		shift = uint(-exp) // at most 52, since v >= 1
		whole, frac = mant>>shift, mant&(1<<shift-1)
	}
	var digits [20]byte
	for i := range digits {
		frac *= 10 // below 10 * 2^52: no overflow
		digits[i] = byte(frac >> shift)
		frac &= 1<<shift - 1
	}
	// Round on what is left: frac / 2^shift against one half.
	if shift > 0 {
		half := uint64(1) << (shift - 1)
		if frac > half || frac == half && digits[19]&1 == 1 {
			i := 19
			for ; i >= 0 && digits[i] == 9; i-- {
				digits[i] = 0
			}
			if i < 0 {
				whole++
			} else {
				digits[i]++
			}
		}
	}
	b := make([]byte, 0, 21+20)
	b = strconv.AppendUint(b, whole, 10)
	b = append(b, '.')
	for _, d := range digits {
		b = append(b, '0'+d)
	}
	return string(b)
}
