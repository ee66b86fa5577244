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
	t.Parallel()
	p := StartPair(t)
	for _, c := range logicalAssignCases {
		p.Same(t, "EVAL", c, "0")
	}
	rng := rand.New(rand.NewSource(1))
	for range soakOr(300, 1500) {
		p.Same(t, "EVAL", genAssignScript(rng, 1), "0")
	}
}

// Lua evaluates every value, then stores from the last target to the
// first. gopher-lua stores a value for a local as soon as it has it, reads
// a table target's local value when it stores but copies its local key
// before any value (Lua does the opposite), and miscounts registers left
// of a table target whose value is a local.
var multipleAssignCases = []string{
	"local a, b = 1, 2; a, b = b, a; return {a, b}",
	"local a, b, c = 1, 2, 3; a, b, c = c, a, b; return {a, b, c}",
	"local a, b = 0, 0; a, b = a + 1, a + b; return {a, b}",
	"local t, u = {}, {}; t.x, t = 1, u; return {tostring(t.x), tostring(u.x)}",
	"local t, u = {}, {}; local old = t; t, t.x = u, 1; return {tostring(old.x), tostring(u.x)}",
	"local a; a, a = 1, 2; return a",
	"local t = {}; local u; (function() local a = 'v'; u, t.k = 1, a end)(); return {tostring(u), t.k}",
	"local i, t = 1, {}; i, t[i] = i + 1, 20; return {i, tostring(t[1]), tostring(t[2])}",
	"local i, t = 1, {}; t[i], i = 20, i + 1; return {i, tostring(t[1]), tostring(t[2])}",
	"local x, y = 1, 2; x = (y or 0) and x; return x",
	"local t, k = {}, 1; local function g() k = 2; return 5 end; t[k] = g(); return {tostring(t[1]), tostring(t[2])}",
	"local t, a = {}, 1; local function w() a = 'w' return 2 end; t.x, t.y = a, w(); return {t.x, t.y}",
	// The closure that changes a comes after the assignment.
	"local a, b = 1, 2; local g; for i = 1, 2 do if g then a, b = g(), a end; g = function() a = 'w'; return 'g' end end; return {a, b}",
	"local a, b = 1, 2; local function f(...) a, b = ... end; f(b, a); return {a, b}",
	"local a, seen = 1; local w = setmetatable({}, {__newindex = function() seen = a end}); a, w.z = 2, 3; return seen",
}

func TestLuaMultipleAssign(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, c := range multipleAssignCases {
		p.Same(t, "EVAL", c, "0")
	}
	rng := rand.New(rand.NewSource(1))
	for range soakOr(300, 1500) {
		p.Same(t, "EVAL", genMultiScript(rng), "0")
	}
}
