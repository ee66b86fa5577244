package luabit_test

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

func TestDifferentialBit(t *testing.T) {
	var cs []difftest.Case
	add := func(s string) { cs = append(cs, difftest.Case{Script: s}) }
	nums := []string{"0", "1", "-1", "2^31", "2^31-1", "-2^31", "2^32", "2^32+5", "-2^32-5", "2^52", "2^53", "2^60",
		"1.5", "2.5", "-1.5", "-2.5", "0.4999999", "3.5", "1e20", "-1e20", "1/0", "-1/0", "0/0", "'12'", "'0x10'",
		"' 7 '", "'1e3'", "0xdeadbeef", "0x7fffffff", "0x80000000", "2^51+0.5", "2^51-0.5", "-2^51"}
	for _, n := range nums {
		add(fmt.Sprintf("return tostring(bit.tobit(%s))", n))
		add(fmt.Sprintf("return {bit.tohex(%s), bit.tohex(%s, 4), bit.tohex(%s, -3), bit.tohex(%s, 0), bit.tohex(%s, 20)}", n, n, n, n, n))
		add(fmt.Sprintf("return {tostring(bit.bnot(%s)), tostring(bit.bswap(%s))}", n, n))
	}
	for _, a := range []string{"0x12345678", "-1", "0xf0f0f0f0", "1"} {
		for _, n := range []string{"0", "1", "4", "31", "32", "33", "-1", "-31", "2.5", "1e10"} {
			add(fmt.Sprintf("return {tostring(bit.lshift(%[1]s, %[2]s)), tostring(bit.rshift(%[1]s, %[2]s)), tostring(bit.arshift(%[1]s, %[2]s)), tostring(bit.rol(%[1]s, %[2]s)), tostring(bit.ror(%[1]s, %[2]s))}", a, n))
		}
	}
	for _, args := range []string{"1", "1, 2", "0xff, 0x0f, 0x3c", "-1, 2^32+1", "'3', '5'", "0x12345678, 0xff00ff00, 0x0ff0", ""} {
		add(fmt.Sprintf("return {pcall(function() return {tostring(bit.band(%[1]s)), tostring(bit.bor(%[1]s)), tostring(bit.bxor(%[1]s))} end)}", args))
	}
	for _, bad := range []string{"bit.tobit()", "bit.tobit(nil)", "bit.tobit('x')", "bit.tobit({})", "bit.band(1, 'a')",
		"bit.bor(1, 2, nil)", "bit.lshift(1)", "bit.tohex(1, nil)", "bit.tohex('z')", "bit.bxor(true)", "bit.rol(1, {})", "bit.tobit('')"} {
		add(fmt.Sprintf("local ok, e = pcall(function() return %s end) return {tostring(ok), e}", bad))
		add(fmt.Sprintf("return {pcall(%s)}", pcallForm(bad)))
	}
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("bit: %d/%d cases match redis-server", n, len(cs))
}

// pcallForm turns "bit.f(a, b)" into "bit.f, a, b" for a direct pcall.
func pcallForm(call string) string {
	for i := 0; i < len(call); i++ {
		if call[i] == '(' {
			args := call[i+1 : len(call)-1]
			if args == "" {
				return call[:i]
			}
			return call[:i] + ", " + args
		}
	}
	return call
}
