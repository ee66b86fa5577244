package tests

import (
	"math/rand"
	"testing"
)

// gopher-lua compiles "x = a and b", x an existing local and a anything
// but a local of the same function, so that a falsy a leaves x as it was.
var logicalAssignCases = []string{
	"local ok = 5; ok = tonumber('x') and 7; return tostring(ok)",
	"local ok = true; ok = tonumber('abc') and true; return tostring(ok)",
	"local a, b = 5, 6; a, b = tonumber('x') and 1, 2; return {tostring(a), b}",
	"local ok = true; ok = KEYS[1] and true; return tostring(ok)",
	"local ok = 3; ok = ... and true; return tostring(ok)",
	"local ok = 3; ok = not tostring(1) and true; return tostring(ok)",
	"local ok = 3; ok = (tonumber('1') or tonumber('x')) and ARGV[1] and 1; return tostring(ok)",
	"local n; local function f() local ok = 1; ok = n and 2; return ok end; return tostring(f())",
	"local function f(ok) ok = redis.call('get', 'nokey') and 1; return ok end; return tostring(f(3))",
	"local t = {1}; local ok = 0; for i = 1, 2 do ok = t[i] and i end; return tostring(ok)",
	// Rewritten statements keep their lines in error messages, their order
	// of evaluation and their stores.
	"local function f() end; local ok = 1\nok = tonumber('1') and\n  f().x and 2\nreturn ok",
	"local ok = 1\nok, zz = tonumber('x') and 1, 2\nreturn ok",
	"local ok, t = 1, {}\nok, t.x = tonumber('x') and 1, 2\nreturn {tostring(ok), t.x}",
	"local log = {}; local function k(n) log[#log + 1] = n; return n end; local function f(n) k(n); return nil end\n" +
		"local t, ok = {}, 1; t[k('a')], ok, t[k('b')] = k('c'), f('d') and 1, k('e')\n" +
		"return {table.concat(log), tostring(ok), t.a, t.b}",
	"local ok, ok2 = 1, 2; ok, ok = tonumber('x') and 1, 3; return tostring(ok)",
	"local t = {}; function t:m() end; local ok = 1; ok = t:m() and 1; return tostring(ok)",
}

func TestLuaLogicalAssign(t *testing.T) {
	p := StartPair(t)
	for _, c := range logicalAssignCases {
		p.Same(t, "EVAL", c, "0")
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 1500; i++ {
		p.Same(t, "EVAL", genAssignScript(rng, 1), "0")
	}
}
