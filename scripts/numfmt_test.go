package scripts

import (
	"math"
	"testing"
)

func TestFmtNumber(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{1234567.5, "1234567.5"}, {1e15, "1e+15"}, {100, "100"}, {0.1, "0.1"}, {math.Copysign(0, -1), "-0"},
		{1.0 / 3, "0.33333333333333"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {1e100, "1e+100"},
		{123456789012345, "1.2345678901234e+14"}, {99999999999999, "99999999999999"}, {1e-5, "1e-05"},
	} {
		if got := fmtNumber(c.f); got != c.want {
			t.Errorf("fmtNumber(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	if got := fmtArgNumber(0.1); got != "0.10000000000000001" {
		t.Errorf("fmtArgNumber(0.1) = %q", got)
	}
}

func TestStr2Number(t *testing.T) {
	for _, c := range []struct {
		s  string
		f  float64
		ok bool
	}{
		{"1e2", 100, true}, {" 3 ", 3, true}, {"0x10", 16, true}, {"0X1F", 31, true}, {"inf", math.Inf(1), true},
		{"-inf", math.Inf(-1), true}, {"-Infinity", math.Inf(-1), true}, {".5", 0.5, true}, {"5.", 5, true},
		{"0x1p4", 16, true}, {"99999999999999999999", 1e20, true}, {"\t-7\n", -7, true},
		{"", 0, false}, {"abc", 0, false}, {"1 2", 0, false}, {"1e", 0, false}, {"0x", 0, false}, {"--1", 0, false},
		{".", 0, false}, {"e5", 0, false},
		// Lua reads the C string, which ends at a NUL byte (Redis 7.0: tonumber("1\0x") is 1).
		{"1\x00x", 1, true}, {"\x001", 0, false},
	} {
		f, ok := str2number(c.s)
		if ok != c.ok || (ok && f != c.f) {
			t.Errorf("str2number(%q) = %v, %v; want %v, %v", c.s, f, ok, c.f, c.ok)
		}
	}
}

func TestAppendArgNumberMatchesFmtArgNumber(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 1.5, -2.25, 1e15, 1e16, 1e300, 1e-300, 3.14159265358979, 1763790000.123, 1.0 / 3, 123456789012345678, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1)} {
		if got, want := string(appendArgNumber([]byte("x"), f)), "x"+fmtArgNumber(f); got != want {
			t.Errorf("%v: %q, want %q", f, got, want)
		}
	}
}
