package tests

import (
	"strings"
	"testing"
)

// SCRIPT KILL stops a script stuck inside a built-in, not only between Lua
// instructions: the built-ins that can work for seconds (or, given tables
// that share subtables, for ever) poll the kill switch. The killer gets OK,
// the script's client the killed error, and other clients are served
// after. Each built-in here would not end without the kill (until it ran
// out of memory, or for hours); those that always end (table.sort,
// string.rep...) are checked by TestBuiltinsPollTheKillSwitch in package
// scripts, as a kill landing in them only shows in how soon the script
// stops.
func TestScriptingKillInsideBuiltins(t *testing.T) {
	q := StartQlessd(t, "")
	// A table that shares its subtables: 8^13 leaves, a few hundred bytes.
	const shared = "local e = {} local x = {e, e, e, e, e, e, e, e} for i = 1, 12 do x = {x, x, x, x, x, x, x, x} end "
	const backtrack = "local s, p = string.rep('a', 3000), 'a*a*a*a*a*b' "
	for _, c := range []struct{ name, body string }{
		{"cjson.encode", shared + "return #cjson.encode(x)"},
		{"cmsgpack.pack", shared + "return #cmsgpack.pack(x)"},
		// Patterns that backtrack for ever: each start tries every split
		// of the run of a's between five a*.
		{"string.gsub", backtrack + "return (s:gsub(p, 'x'))"},
		{"string.find", backtrack + "return s:find(p)"},
		{"string.match", backtrack + "return s:match(p)"},
		{"string.gmatch", backtrack + "for w in s:gmatch(p) do end return 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			other := DialRaw(t, q.Addr)
			other.Do(t, "CONFIG", "SET", "lua-time-limit", "100")
			runner := DialRaw(t, q.Addr)
			runner.Send(t, "EVAL", c.body, "0")
			if got := untilBusy(t, other, "PING"); !strings.HasPrefix(got, "-BUSY") {
				t.Fatalf("PING while the script runs: %q", got)
			}
			if got := other.Do(t, "SCRIPT", "KILL"); got != "+OK\r\n" {
				t.Fatalf("SCRIPT KILL: %q", got)
			}
			if got := runner.Read(t); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
				t.Fatalf("the script's reply: %q", got)
			}
			if got := other.Do(t, "PING"); got != "+PONG\r\n" {
				t.Fatalf("PING after the kill: %q", got)
			}
		})
	}
}
