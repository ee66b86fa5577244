package luabit_test

import (
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// Expected replies were recorded from redis-server 7.0.15.
func TestBit(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{`return {bit.tobit(2^32+5), bit.tobit(2^31), bit.tobit(-1), bit.tobit(1.5), bit.tobit(2.5), bit.tobit('12')}`, `[:5 :-2147483648 :-1 :2 :2 :12]`},
		{`return {bit.tohex(255), bit.tohex(-1, 4), bit.tohex(0xabc, -3), bit.tohex(1, 0), bit.tohex(1, 20)}`, `["000000ff" "ffff" "ABC" "" "00000001"]`},
		{`return {bit.band(0xff, 0x0f, 0x3c), bit.bor(1, 2, 4), bit.bxor(5, 3), bit.bnot(0)}`, `[:12 :7 :6 :-1]`},
		{`return {bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), bit.ror(0x12345678, 8), bit.lshift(1, 33)}`,
			`[:-2147483648 :15 :-16 :878082066 :2014458966 :2]`},
		{`return bit.bswap(0x12345678)`, `:2018915346`},
		{`return {pcall(bit.tobit, 'x')}`, `[nil "bad argument #1 to '?' (number expected, got string)"]`},
		{`return {pcall(function() return bit.band(1, nil) end)}`, `[nil "user_script:1: bad argument #2 to 'band' (number expected, got nil)"]`},
	} {
		if got := difftest.Eval(c.script); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.script, got, c.want)
		}
	}
}
