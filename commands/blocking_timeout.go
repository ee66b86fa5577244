package commands

import (
	"math"
	"math/big"
	"time"
)

// ParseBlockTimeout reads the seconds timeout of a blocking command as Redis
// 7.0 does: a long double, times 1000, rounded up to whole milliseconds and
// cast to a 64-bit integer, so a value too large for it (inf included) wraps
// to "negative", and a tiny positive value still waits one millisecond.
// A zero duration waits forever. errMsg is empty on success.
func ParseBlockTimeout(arg []byte) (d time.Duration, errMsg string) {
	f, ok := ParseFloat(arg)
	// A double underflows to zero where a long double may not (1e-400) or
	// may overflow its range (1e-5000): look again at decimal zeros.
	if !ok || (f == 0 && decimal(arg)) {
		if f, ok = longDoubleOnly(arg); !ok {
			return 0, ErrTimeoutNotFloat
		}
	}
	ms := math.Ceil(f * 1000)
	if math.IsInf(ms, 0) || ms >= math.MaxInt64 || ms < math.MinInt64 || ms < 0 {
		return 0, ErrTimeoutNeg
	}
	if ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		// Redis's deadline overflows and the client waits indefinitely.
		return 0, ""
	}
	return time.Duration(ms) * time.Millisecond, ""
}

// Largest finite and smallest positive x87 long double.
var (
	longDoubleMax, _, _ = big.ParseFloat("1.18973149535723176502e+4932", 10, 64, big.ToNearestEven)
	longDoubleMin, _, _ = big.ParseFloat("3.64519953188247460253e-4951", 10, 64, big.ToNearestEven)
)

// longDoubleOnly accepts the numbers a double cannot hold but a long double
// can: it returns +-Inf for those too large for a double and the smallest
// double of the same sign for those too small, which is all the timeout
// arithmetic needs.
func longDoubleOnly(arg []byte) (float64, bool) {
	s := string(arg)
	if len(s) == 0 || len(s) > 5*1024 || isSpace(s[0]) || isSpace(s[len(s)-1]) {
		return 0, false
	}
	if !decimal(arg) {
		return 0, false
	}
	v, _, err := big.ParseFloat(s, 10, 64, big.ToNearestEven)
	if err != nil || v.IsInf() {
		return 0, false
	}
	a := new(big.Float).Abs(v)
	switch {
	case a.Cmp(longDoubleMax) > 0:
		return 0, false
	case a.Sign() == 0:
		return 0, true
	case a.Cmp(longDoubleMin) < 0:
		return 0, false
	case a.Cmp(big.NewFloat(math.MaxFloat64)) > 0:
		return math.Inf(v.Sign()), true
	}
	// Too small for a double but not zero: the sign decides whether ceil
	// gives one millisecond or zero.
	return math.Copysign(math.SmallestNonzeroFloat64, float64(v.Sign())), true
}

func decimal(arg []byte) bool {
	for _, ch := range arg {
		if !(ch >= '0' && ch <= '9' || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-') {
			return false
		}
	}
	return true
}

// block asks the server to wait for keys.
func block(c *Ctx, keys [][]byte, timeout time.Duration) {
	req := &BlockRequest{DB: c.Tx.Selected(), Timeout: timeout}
	for _, k := range keys {
		req.Keys = append(req.Keys, string(k))
	}
	c.Block = req
}
