package tests

import (
	"fmt"
	"math/rand"
	"strings"
)

// assignPrelude declares what the generated assignments read: calls that
// log themselves and return nil, false or values, tables with falsy fields,
// methods, a table whose metamethods return falsy values, and chunk-level
// locals (upvalues inside the snippets' functions). With cacheFirst the
// pure declarations come first, so qlessd caches them per state (the
// factory form, scripts/prefix.go) and the snippets run in a nested
// function; otherwise a call comes first and the chunk compiles as it is.
func assignPrelude(cacheFirst bool) string {
	pure := `local log = {}
local t = {f = false, v = 7}
local o = {}
local ln, lf, lv = nil, false, 7
local out = {}
local function rec(x) log[#log + 1] = x end
local function fn() rec('fn') return nil end
local function ff() rec('ff') return false end
local function fv() rec('fv') return 'v' end
local function fm(...) rec('fm') return ... end
function o:mn() rec('mn') return nil end
function o:mf() rec('mf') return false end
function o:mv() rec('mv') return self end
local function r(v)
  local ty = type(v)
  if ty == 'table' or ty == 'function' then return ty end
  return ty .. ':' .. tostring(v)
end
`
	meta := `local mt = setmetatable({}, {
  __add = function() rec('add') return false end,
  __concat = function() rec('cat') return nil end,
  __index = function() rec('idx') return nil end,
  __eq = function() rec('eq') return true end})
`
	if cacheFirst {
		return pure + meta
	}
	return meta + pure
}

// assignLeaves are operands of every kind the compiler treats apart:
// calls, locals (il* are the snippet function's own, l* upvalues there),
// fields, indexes, methods, constants, varargs, comparisons, arithmetic
// and concatenation with metamethods, globals.
var assignLeaves = []string{
	"fn()", "ff()", "fv()", "fm()", "fm(false, 1)", "(fm(nil, 2))", "fm(3, nil)",
	"ln", "lf", "lv", "il", "ilf", "ilv",
	"t.n", "t.f", "t.v", "t[lv]", "t['f']", "KEYS[1]", "ARGV[1]", "mt.zz",
	"o:mn()", "o:mf()", "o:mv()",
	"nil", "false", "true", "1", "'s'", "...",
	"lv == 7", "ln ~= nil", "lv < 3", "mt == t",
	"(mt + 1)", "(lv + 1)", "-lv", "(mt .. 'a')", "('a' .. lv)", "#t",
	"tonumber", "tonumber('x')", "tonumber('5')", "{}",
}

// genLogical returns a random expression of at most depth levels of and,
// or, not and comparisons over assignLeaves.
func genLogical(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.Intn(10) < 2 {
		return assignLeaves[rng.Intn(len(assignLeaves))]
	}
	sub := func() string {
		e := genLogical(rng, depth-1)
		if strings.ContainsAny(e, " ") {
			return "(" + e + ")"
		}
		return e
	}
	switch n := rng.Intn(20); {
	case n < 8:
		return sub() + " and " + sub()
	case n < 16:
		return sub() + " or " + sub()
	case n < 18:
		return "not " + sub()
	default:
		return sub() + " == " + sub()
	}
}

// genTop is an assignment's right-hand side: mostly and/or at the root.
func genTop(rng *rand.Rand) string {
	for {
		e := genLogical(rng, 1+rng.Intn(3))
		if strings.Contains(e, " and ") || strings.Contains(e, " or ") || rng.Intn(4) == 0 {
			return e
		}
	}
}

const ownLocals = "local il, ilf, ilv = nil, false, 'i'; "

// assignContexts place assignments of E (and E2) to existing locals in
// every setting the compiler distinguishes: chunk, nested and vararg
// functions, parameters, loops, blocks, multiple assignment with locals,
// fields and calls, upvalue and field targets, new locals, methods.
// @ARG@ is what the snippet's vararg function gets.
var assignContexts = []string{
	"do " + ownLocals + "local x = 'old'; x = @E@; out[#out + 1] = r(x) end",
	"do local function g(...) " + ownLocals + "local x = 'old'; x = @E@; return x end; out[#out + 1] = r(g(@ARG@)) end",
	"do local function g(x, ...) " + ownLocals + "x = @E@; return x end; out[#out + 1] = r(g('old', @ARG@)) end",
	"do " + ownLocals + "local x = 'old'; for i = 1, 2 do x = @E@ end; out[#out + 1] = r(x) end",
	"do " + ownLocals + "local x, n = 'old', 0; while n < 1 do n = n + 1; if n then x = @E@ end end; out[#out + 1] = r(x) end",
	"do " + ownLocals + "local x, y = 'ox', 'oy'; x, y = @E@, @E2@; out[#out + 1] = r(x) .. r(y) end",
	"do " + ownLocals + "local x, y = 'ox', 'oy'; y, x = @E2@, @E@; out[#out + 1] = r(x) .. r(y) end",
	"do " + ownLocals + "local x, y = 'ox', 'oy'; x, y = @E@, fm(ilv, nil); out[#out + 1] = r(x) .. r(y) end",
	"do " + ownLocals + "local x, y, tt = 'ox', 'oy', {}; x, tt.k, y = @E@, @E2@, @E@; out[#out + 1] = r(x) .. r(tt.k) .. r(y) end",
	"do local x = 'old'; local function g(...) " + ownLocals + "x = @E@ end; g(@ARG@); out[#out + 1] = r(x) end",
	"do " + ownLocals + "local x = @E@; out[#out + 1] = r(x) end",
	"do local function g(...) local x = 'old'; do " + ownLocals + "x = @E@ end; return x end; out[#out + 1] = r(g(@ARG@)) end",
	"do local x = 'old'; repeat " + ownLocals + "x = @E@ until x or true; out[#out + 1] = r(x) end",
	"do " + ownLocals + "local tt = {}; tt.k = @E@; out[#out + 1] = r(tt.k) end",
	"do local oo = {}; function oo:m(...) " + ownLocals + "local x = 'old'; x = @E@; return x end; out[#out + 1] = r(oo:m(@ARG@)) end",
	"do " + ownLocals + "local x, y = 'ox', 'oy'; x, y = @E@; out[#out + 1] = r(x) .. r(y) end",
	"do " + ownLocals + "local x = 'old'; x = @E@, @E2@; out[#out + 1] = r(x) end",
}

var varargValues = []string{"", "nil", "false", "'a'"}

// genAssignScript is one EVAL body: the prelude, then stmts random
// assignments in random contexts, returning what each left and the call log.
func genAssignScript(rng *rand.Rand, stmts int) string {
	var b strings.Builder
	b.WriteString(assignPrelude(rng.Intn(2) == 0))
	for i := 0; i < stmts; i++ {
		s := assignContexts[rng.Intn(len(assignContexts))]
		for _, hole := range []string{"@E@", "@E2@"} {
			for strings.Contains(s, hole) {
				s = strings.Replace(s, hole, genTop(rng), 1)
			}
		}
		s = strings.ReplaceAll(s, "@ARG@", varargValues[rng.Intn(len(varargValues))])
		fmt.Fprintf(&b, "%s\nrec('/')\n", s)
	}
	b.WriteString("out[#out + 1] = table.concat(log, ',')\nreturn out\n")
	return b.String()
}

// multiPrelude sets up a function whose locals a, b, c and t the generated
// multiple assignments assign and read. With captured, closures read
// (rd) and write (wr) them and metamethods call rd when a value is read
// (mt) or stored (mw), so code run in the middle of an assignment can see
// when a local changes; otherwise they touch nothing of the function's.
func multiPrelude(captured bool) string {
	rd, wr := "return 'rd'", "return 'wr'"
	if captured {
		rd = "return r(a) .. r(b) .. r(c) .. r(t)"
		wr = "a = 'wa'; return 'wr'"
	}
	return `local log = {}
local function rec(x) log[#log + 1] = tostring(x) end
local function r(v)
  local ty = type(v)
  if ty == 'table' or ty == 'function' then return ty end
  return ty .. ':' .. tostring(v)
end
local function k(v) rec(v) return v end
local n = 0
local function f() n = n + 1; rec('f' .. n) return n end
local u = 'u'
local function run()
  local a, b, c = 1, 2, 3
  local t = {x = 'tx'}
  local nt = {}
  local function rd() rec('rd') ` + rd + ` end
  local function wr() rec('wr') ` + wr + ` end
  local mt = setmetatable({}, {__index = function() return rd() end})
  local mw = setmetatable({}, {__newindex = function() rec(rd()) end})
`
}

const multiEpilogue = `  local function dump(v)
    if type(v) ~= 'table' then return r(v) end
    return r(v.x) .. r(v[1]) .. r(v[2]) .. r(v.k) .. r(v.s)
  end
  return r(a) .. r(b) .. r(c) .. ' ' .. dump(t) .. ' ' .. dump(nt) .. ' ' .. r(u)
end
local res = run()
return {res, table.concat(log, ',')}
`

var multiTargets = []string{"a", "b", "c", "t", "t.x", "t[a]", "t[b]", "t[1]", "t[k('k')]", "nt.s", "u", "mw.z"}

var multiValues = []string{
	"a", "b", "c", "t", "nt", "1", "'s'", "nil", "false", "f()", "rd()", "wr()", "k(a)", "(k(b))",
	"t.x", "t[1]", "mt.q", "{a}", "a and b", "(a or b) and c", "(f() or b) and a", "(a or k(1)) and rd()",
	"not a", "a == b", "#nt", "tostring(a)", "...",
}

// genMultiScript is one EVAL body with one random assignment of one to
// three targets from one to four values.
func genMultiScript(rng *rand.Rand) string {
	captured := rng.Intn(2) == 0
	pick := func(from []string, n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = from[rng.Intn(len(from))]
		}
		return strings.Join(parts, ", ")
	}
	values := pick(multiValues, 1+rng.Intn(4))
	stmt := "  " + pick(multiTargets, 1+rng.Intn(3)) + " = " + values + "\n"
	if strings.Contains(values, "...") {
		stmt = "  local function g(...)\n  " + stmt + "  end\n  g(k('va'), nil)\n"
	}
	return multiPrelude(captured) + stmt + multiEpilogue
}
