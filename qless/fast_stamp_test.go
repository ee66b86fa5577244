package qless

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFixed20MatchesStrconv compares fixed20 with strconv on times as
// clients send them, on random floats over its whole range, and on the
// edges where rounding carries into the whole part.
func TestFixed20MatchesStrconv(t *testing.T) {
	check := func(v float64) {
		t.Helper()
		if got, want := fixed20(v), strconv.FormatFloat(v, 'f', 20, 64); got != want {
			t.Fatalf("fixed20(%v) = %s, want %s", v, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 200000; i++ {
		check(float64(1763790000000000+r.Int64N(1e12)) / 1e6) // microsecond times
		check(float64(1763790000000+r.Int64N(1e9)) / 1e3)     // millisecond times
		check(math.Float64frombits(r.Uint64N(0x4340000000000000-0x3ff0000000000000) + 0x3ff0000000000000))
	}
	// Exact ties at the twentieth digit: k / 2^21 has 21 decimals, the last
	// a 5.
	for k := 1; k < 5000; k++ {
		check(1 + float64(k)/(1<<21))
		check(1763790000 + float64(k)/(1<<21))
	}
	for _, v := range []float64{1, 1.5, 2, 0.5, 0, -1, 1e-7, math.Nextafter(1, 2), math.Nextafter(2, 1),
		1<<53 - 1, 1 << 53, 1e300, math.Inf(1), math.NaN(), 9.999999999999999e9, 1.00000000000000000001,
		0.99999999999999999, 4503599627370495.5, 2251799813685247.75} {
		check(v)
	}
}
