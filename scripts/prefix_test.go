package scripts

import (
	"strings"
	"testing"

	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// moduleHead is a chunk head that splitPrefix caches: tables and functions
// built from constants.
const moduleHead = `local M = {ns = 'm:'}
local N = {ns = M.ns .. 'n:'}
N.__index = N
M.config = {}
M.config.defaults = {a = 1, b = 'x'}
function M.get(k) return M.config.defaults[k] end
function N:name() return self.ns end
function N.new() return setmetatable({}, N) end
local function helper(x) return x .. '!' end
M.helper = helper
`

func TestPrefixSplitsModuleHead(t *testing.T) {
	chunk, err := parseChunk(moduleHead+"return M.get('a')\n", chunkName)
	if err != nil {
		t.Fatal(err)
	}
	f := splitPrefix(chunk)
	if len(f) != len(chunk)+1-1 {
		t.Fatalf("factory has %d statements for a chunk of %d", len(f), len(chunk))
	}
}

// Every call starts from the state the cached statements left, whatever
// the previous call changed in the cached tables.
func TestPrefixCallsDoNotLeak(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	body := moduleHead + `
local before = {tostring(M.config.defaults.a), tostring(rawget(M, 'extra')), tostring(getmetatable(M)), tostring(M[1]), tostring(N.__index == N), helper('h')}
M.config.defaults.a = M.config.defaults.a + 1
M.extra = {}
M[1] = 'one'
M[7] = 'seven'
N.__index = nil
setmetatable(M, {__index = function() return 'meta' end})
return before
`
	want := "[1 nil nil nil true h!]"
	for i := 0; i < 4; i++ {
		if got := show(eval(t, e, h, body)); got != want {
			t.Fatalf("call %d: got %s want %s", i, got, want)
		}
	}
	if len(e.idle) != 1 || len(e.idle[0].chunks) != 1 {
		t.Fatal("the state kept no factory result")
	}
	for _, c := range e.idle[0].chunks {
		if c.fn == nil {
			t.Fatal("the factory failed")
		}
	}
}

// Statements that must run per call keep their order and meaning; chunks
// that name a cached local before it is declared, assign one, or use ...
// run whole.
func TestPrefixPerCallMeaning(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	cases := []struct{ body, want string }{
		{moduleHead + "function table.extend2(t) return M end\nreturn M.get('b')", "x"},
		{"local r = redis.call('get', 'k')\n" + moduleHead + "return tostring(r)", "false"},
		{"local v = type(M)\n" + moduleHead + "return v", "ERR user_script:1: Script attempted to access nonexistent global variable 'M'"},
		{"redis.call('set', 'k', tostring(rawget(_G, 'M')))\n" + moduleHead + "return redis.call('get', 'k')", "nil"},
		{"function table.extend(t) return type(rawget(_G, 'M')) end\n" + moduleHead + "return table.extend()", "nil"},
		{moduleHead + "M = 5\nreturn M", "5"},
		{moduleHead + "return select('#', ...)", "0"},
		{moduleHead + "return type(arg)", "ERR user_script:11: Script attempted to access nonexistent global variable 'arg'"},
		{moduleHead + "if #KEYS > 0 then error('keys') end\nreturn N.new():name()", "m:n:"},
		{moduleHead + "error('boom')", "ERR user_script:11: boom"},
	}
	for _, c := range cases {
		for i := 0; i < 3; i++ {
			got := show(eval(t, e, h, c.body))
			if i := strings.Index(got, " script: "); i >= 0 {
				got = got[:i]
			}
			if got != c.want {
				t.Errorf("%q call %d:\n got %q\nwant %q", c.body, i, got, c.want)
			}
		}
	}
}

// Hoisting reads each sandbox global once up front, which cannot fail only
// if every one of them exists, in both sandbox flavours.
func TestFixedGlobalsExist(t *testing.T) {
	for _, ro := range []bool{false, true} {
		s := newState(NewEngine(Options{ReadonlyTables: ro}))
		for n := range fixedGlobals {
			if s.realG.RawGetString(n) == lua.LNil {
				t.Errorf("readonly=%v: no global %s", ro, n)
			}
		}
		s.L.Close()
	}
}

// A library reads its globals once; a chunk that assigns or declares one
// keeps its own.
func TestHoistKeepsMeaning(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	if err := e.RegisterLibrary("h", "local function f(x) return tostring(x) .. type(x) end\nreturn function(a) local string = {len = function() return 'mine' end} return {f(a), string.len(a), table.concat({a, a}, ',')} end"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		var rec resp.Recorder
		e.CallLibrary(h, "h", [][]byte{[]byte("ab")}, &rec)
		if got := show(rec.Value()); got != "[abstring mine ab,ab]" {
			t.Fatalf("call %d: %s", i, got)
		}
	}
	body := moduleHead + "tostring = nil"
	want := "ERR user_script:11: Attempt to modify a readonly table"
	for i := 0; i < 2; i++ {
		got := show(eval(t, e, h, body))
		if !strings.HasPrefix(got, want) {
			t.Fatalf("call %d: %s", i, got)
		}
	}
}

// A chunk with labels at its top level could run its statements twice; it
// is left whole.
func TestPrefixLeavesGotoChunks(t *testing.T) {
	chunk, err := parseChunk(moduleHead+"::again::\nM.n = (M.n or 0) + 1\nif M.n < 3 then goto again end\nreturn M.n\n", chunkName)
	if err != nil {
		t.Fatal(err)
	}
	if f := splitPrefix(chunk); f != nil {
		t.Fatal("split a chunk with a label")
	}
}
