package clua

import (
	"math"
	"testing"
)

func TestFormatG(t *testing.T) {
	// Expected texts are what C's printf("%.Ng") prints.
	for _, c := range []struct {
		v           float64
		g14, g1, g6 string
	}{
		{0, "0", "0", "0"},
		{math.Copysign(0, -1), "-0", "-0", "-0"},
		{1e300, "1e+300", "1e+300", "1e+300"},
		{1.0 / 3, "0.33333333333333", "0.3", "0.333333"},
		{1 << 53, "9.007199254741e+15", "9e+15", "9.0072e+15"},
		{1e-7, "1e-07", "1e-07", "1e-07"},
		{123456789012345, "1.2345678901234e+14", "1e+14", "1.23457e+14"},
		{1e14, "1e+14", "1e+14", "1e+14"},
		{0.1, "0.1", "0.1", "0.1"},
		{100, "100", "1e+02", "100"},
		{1e-5, "1e-05", "1e-05", "1e-05"},
		{0.0001, "0.0001", "0.0001", "0.0001"},
		{5e-324, "4.9406564584125e-324", "5e-324", "4.94066e-324"},
		{math.MaxFloat64, "1.7976931348623e+308", "2e+308", "1.79769e+308"},
		{-2.5, "-2.5", "-2", "-2.5"},
		{99999999999999.5, "1e+14", "1e+14", "1e+14"},
		{math.Inf(1), "inf", "inf", "inf"},
		{math.Inf(-1), "-inf", "-inf", "-inf"},
		{math.NaN(), "nan", "nan", "nan"},
		{-math.NaN(), "-nan", "-nan", "-nan"},
	} {
		for _, p := range []struct {
			prec int
			want string
		}{{14, c.g14}, {1, c.g1}, {6, c.g6}} {
			if got := FormatG(c.v, p.prec); got != p.want {
				t.Errorf("FormatG(%v, %d) = %q, want %q", c.v, p.prec, got, p.want)
			}
		}
	}
}

func TestStrtod(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		n    int
	}{
		{"1", 1, 1}, {"-0", math.Copysign(0, -1), 2}, {"  12abc", 12, 4}, {"1e5", 1e5, 3}, {"1e", 1, 1},
		{"1e+", 1, 1}, {"1.5e-3x", 1.5e-3, 6}, {".5", 0.5, 2}, {"5.", 5, 2}, {".", 0, 0}, {"-", 0, 0}, {"+7", 7, 2},
		{"0x10", 16, 4}, {"0X1p4", 16, 5}, {"0x.8", 0.5, 4}, {"0x", 0, 1}, {"0xg", 0, 1}, {"-0x10", -16, 5},
		{"inf", math.Inf(1), 3}, {"-Infinity", math.Inf(-1), 9}, {"infinit", math.Inf(1), 3}, {"1e400", math.Inf(1), 5},
		{"1e-400", 0, 6}, {"abc", 0, 0}, {"", 0, 0}, {"- 1", 0, 0},
	} {
		got, n := Strtod(c.in)
		if n != c.n || got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("Strtod(%q) = %v, %d; want %v, %d", c.in, got, n, c.want, c.n)
		}
	}
	if v, n := Strtod("nan(abc)x"); !math.IsNaN(v) || n != 8 {
		t.Errorf("Strtod(nan(abc)x) = %v, %d", v, n)
	}
	if v, n := Strtod("-nan"); !math.IsNaN(v) || !math.Signbit(v) || n != 4 {
		t.Errorf("Strtod(-nan) = %v, %d", v, n)
	}
}

func TestStr2d(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
		v  float64
	}{
		{"12", true, 12}, {" 12 ", true, 12}, {"12a", false, 0}, {"0x1f", true, 31}, {"", false, 0},
		{"1e3", true, 1000}, {"12\x00zz", true, 12}, {"\t-3.5\n", true, -3.5}, {"x", false, 0},
	} {
		v, ok := Str2d(c.in)
		if ok != c.ok || (ok && v != c.v) {
			t.Errorf("Str2d(%q) = %v, %v; want %v, %v", c.in, v, ok, c.v, c.ok)
		}
	}
}

func TestConversions(t *testing.T) {
	if ToInteger(1e300) != math.MinInt64 || ToInteger(math.NaN()) != math.MinInt64 || ToInteger(-2.9) != -2 {
		t.Error("ToInteger does not follow x86-64 cvttsd2si")
	}
	if ToInt32(3e9) != math.MinInt32 || ToInt32(-2147483648.5) != math.MinInt32 || ToInt32(7.9) != 7 {
		t.Error("ToInt32 does not follow x86-64 cvttsd2si")
	}
}
