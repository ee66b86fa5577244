package qless

import (
	"math"
	"testing"
)

// TestStatFieldNames checks the bucket table against stat_field's rule
// (s<seconds> below a minute, m<minutes> below an hour, h<hours> below a
// day, d<days> below a week) at every bucket's edges.
func TestStatFieldNames(t *testing.T) {
	want := func(v float64) string {
		switch {
		case v < 60:
			return "s" + luaNumber(v)
		case v < 3600:
			return "m" + luaNumber(math.Floor(v/60))
		case v < 86400:
			return "h" + luaNumber(math.Floor(v/3600))
		}
		return "d" + luaNumber(math.Floor(v/86400))
	}
	for _, step := range []float64{1, 60, 3600, 86400} {
		for v := 0.0; v < 604800; v += step {
			for _, x := range []float64{v, v + 0.5, v + step - 1} {
				if x >= 604800 {
					continue
				}
				i, ok := statField(x)
				if !ok || statFields[i] != want(math.Floor(x)) {
					t.Fatalf("statField(%v) = %d (%q), %v; want %q", x, i, statFields[i], ok, want(math.Floor(x)))
				}
			}
		}
	}
	for _, x := range []float64{-1, math.Copysign(0, -1), 604800, math.NaN(), math.Inf(1)} {
		if _, ok := statField(x); ok {
			t.Errorf("statField(%v) taken, want it left to the Lua", x)
		}
	}
}
