package tests

import "testing"

// Built-ins that return many results stop where Lua 5.1's stack does
// (LUAI_MAXCSTACK, 8000 slots, arguments included), with Redis's errors,
// rather than pushing up to gopher-lua's registry limit: unpack({}, 1, 1e8)
// ran 25 s before failing.
var manyResultsCorpus = []string{
	"return select('#', unpack({}, 1, 7997))", "return select('#', unpack({}, 1, 7998))",
	"return {pcall(unpack, {}, 1, 1e8)}", "return unpack({}, 1, 1e8)", "return {unpack({}, 1, -1)}",
	"local t = {} for i = 1, 7999 do t[i] = i end return select('#', unpack(t))",
	"local t = {} for i = 1, 8000 do t[i] = i end return select('#', unpack(t))",
	"return {unpack({}, 2^31 - 1, 2^31 + 5)}", "return {unpack({}, -2^31, 2^31 - 1)}", "return {unpack({}, 0, 2^31 - 1)}",
	"return {unpack({1, 2, 3}, 2^32 + 2)}", "return {unpack({1, 2, 3}, 2, nil)}", "return {unpack({1, 2, 3}, nil, 2)}",
	"return {unpack({1, 2, 3}, '2', '3')}", "return unpack({1, 2}, 'x')", "return unpack({1, 2}, 1, {})", "return unpack()",
	"return {unpack({1, nil, 3}, 1, 3)}",
	"return {string.byte('abc')}", "return {string.byte('abc', 2)}", "return {string.byte('abc', -1)}",
	"return {string.byte('abc', 1, -1)}", "return {string.byte('abc', 0, 10)}", "return {string.byte('abc', 3, 2)}",
	"return {string.byte('abc', 0/0, 2)}", "return {string.byte('abc', 2, 1/0)}", "return {string.byte('abc', 2^53)}",
	"return {string.byte('abc', '2', '3')}", "return string.byte('abc', 'x')", "return string.byte()", "return {string.byte(123, 2)}",
	"return select('#', string.byte(string.rep('x', 7997), 1, -1))",
	"return select('#', string.byte(string.rep('x', 7998), 1, -1))",
	"return {pcall(string.byte, string.rep('x', 1e6), 1, -1)}",
}

func TestScriptingManyResults(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range manyResultsCorpus {
		p.Same(t, "EVAL", body, "0")
	}
}

// string.rep's count is a C int as in Lua 5.1: 2^40 counts as 0, so the
// result is empty, as on Redis (gopher-lua's tried to build a terabyte).
var repCorpus = []string{
	"return #string.rep('x', 2^40)", "return #string.rep('ab', 2^32 + 3)", "return string.rep('ab', 3)",
	"return string.rep('ab', -1)", "return string.rep('ab', 0/0)", "return string.rep('ab', 2.9)",
	"return string.rep('ab', '2')", "return string.rep(12, 2)", "return string.rep('x', 'y')", "return string.rep('x')",
	"return string.rep()", "return {pcall(string.rep, {}, 2)}", "return #string.rep('abc', 100000)",
}

func TestScriptingRepCount(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range repCorpus {
		p.Same(t, "EVAL", body, "0")
	}
}
