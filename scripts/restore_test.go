package scripts

import "testing"

// A script that reaches the real globals through pairs(_G) and changes
// their or a library's metatable leaves nothing behind for the next call.
func TestRestoreMetatables(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	eval(t, e, h, "local _, g = pairs(_G); g.tostring = nil; setmetatable(g, nil); setmetatable(string, {__index = function() return 'x' end}) return 1")
	if got := show(eval(t, e, h, "return {tostring(1), tostring(string.nope)}")); got != "[1 nil]" {
		t.Errorf("after the change: %s", got)
	}
	want := "ERR user_script:1: Script attempted to access nonexistent global variable 'nosuch' script: " + SHA1([]byte("return nosuch")) + ", on @user_script:1."
	if got := show(eval(t, e, h, "return nosuch")); got != want {
		t.Errorf("globals' metatable not restored: %s", got)
	}
}
