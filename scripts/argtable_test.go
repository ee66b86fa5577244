package scripts

import "testing"

// arg in vararg functions is Lua 5.1's {...; n = count}, absent (nil) where
// the function uses ... itself, and a nested function's own.
func TestArgTable(t *testing.T) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	cases := []struct{ body, want string }{
		{"local function f(a, ...) return {arg.n, #arg, tostring(arg[2]), arg[3]} end return f(0, 'x', nil, 'z')", "[3 3 nil z]"},
		{"local function f(...) local ks = {} for k, v in pairs(arg) do ks[#ks+1] = tostring(k) end return ks end return f('a', 'b')", "[1 2 n]"},
		{"local function f(...) return arg.n end return f()", "0"},
		{"local function f(...) local x = select('#', ...) return {x, type(arg)} end return f(1, 2)", "[2 nil]"},
		{"local function f(...) local g = function(...) return arg.n end return {arg.n, g(1, 2, 3)} end return f(1)", "[1 3]"},
		{"local function f(...) arg = 5 return arg end return f(1)", "5"},
		{"local function f(...) return function() return arg[1] end end return f('up')()", "up"},
	}
	for _, c := range cases {
		if got := show(eval(t, e, h, c.body)); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.body, got, c.want)
		}
	}
}
