package scripts

import "testing"

// A script that changes a library's metatable leaves nothing behind for the
// next call.
func TestRestoreMetatables(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	eval(t, e, h, "setmetatable(string, {__index = function() return 'x' end}) return 1")
	if got := show(eval(t, e, h, "return {tostring(1), tostring(string.nope)}")); got != "[1 nil]" {
		t.Errorf("after the change: %s", got)
	}
	want := "ERR user_script:1: Script attempted to access nonexistent global variable 'nosuch' script: " + SHA1([]byte("return nosuch")) + ", on @user_script:1."
	if got := show(eval(t, e, h, "return nosuch")); got != want {
		t.Errorf("globals' metatable not restored: %s", got)
	}
}

// pairs(_G) hands scripts _G itself, as Redis does, never the real globals
// behind it, whose fields restore therefore does not check.
func TestPairsKeepsRealGlobalsHidden(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	body := "local f, g = pairs(_G); local n = 0; for k in f, g do n = n + 1 end; return {tostring(g == _G), tostring(n > 20)}"
	if got := show(eval(t, e, h, body)); got != "[true true]" {
		t.Errorf("pairs(_G): %s", got)
	}
	body = "local _, g = pairs(_G); g.tostring = nil"
	want := "ERR user_script:1: Attempt to modify a readonly table script: " + SHA1([]byte(body)) + ", on @user_script:1."
	if got := show(eval(t, e, h, body)); got != want {
		t.Errorf("changing a global through pairs: %s", got)
	}
	if got := show(eval(t, e, h, "return tostring(1)")); got != "1" {
		t.Errorf("after: %s", got)
	}
}

// Strings' metatable is put back after a script changes it.
func TestRestoreStringMetatable(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	eval(t, e, h, "getmetatable('').__index = {len = function() return 'changed' end} return 1")
	if got := show(eval(t, e, h, "return ('abc'):len()")); got != "3" {
		t.Errorf("after the change: %s", got)
	}
}
