package tests

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"
)

// A script that takes more memory than lua-max-memory gets Redis's reply
// for a Lua allocation that failed, and the server serves on: before the
// ceiling, string.rep('x', 2^31 - 1) took 2 GB, 1e5 coroutines 15 GB, and
// a reply of tables sharing subtables grew until the process died. The
// ceiling is the server's own measure of its scripts, so the test runs
// beside others.
func TestScriptingMemoryCeiling(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	if got := c.Do(t, "CONFIG", "GET", "lua-max-memory"); got != "*2\r\n$14\r\nlua-max-memory\r\n$9\r\n268435456\r\n" {
		t.Fatalf("CONFIG GET lua-max-memory: %q", got)
	}
	oom := func(body string) string {
		sum := sha1.Sum([]byte(body))
		return "-ERR Error running script " + hex.EncodeToString(sum[:]) + ", not enough memory\r\n"
	}
	check := func(body, want string) {
		t.Helper()
		if got := c.Do(t, "EVAL", body, "0"); got != want {
			t.Errorf("%s:\n got %q\nwant %q", body, got, want)
		}
		if got := c.Do(t, "PING"); got != "+PONG\r\n" {
			t.Fatalf("PING after %s: %q", body, got)
		}
	}
	check("return #string.rep('x', 2^31 - 1)", oom("return #string.rep('x', 2^31 - 1)"))
	check("return {pcall(string.rep, 'x', 2^31 - 1)}", "*2\r\n$-1\r\n$17\r\nnot enough memory\r\n")
	// A lower ceiling keeps the rest quick.
	if got := c.Do(t, "CONFIG", "SET", "lua-max-memory", "16mb"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET lua-max-memory 16mb: %q", got)
	}
	for _, body := range []string{
		"local t = {} for i = 1, 1e5 do t[i] = coroutine.create(function() end) end return #t",
		"local e = {} local x = {e, e} for i = 1, 40 do x = {x, x} end return x",
		"local s = string.rep('x', 2^20) local t = {} for i = 1, 1000 do t[i] = s .. i end return #t",
		// Each assignment fills 2^21 nils (gopher-lua's array part), in
		// fewer instructions than the interpreter's periodic measure.
		"local a = {} for i = 1, 40 do local t = {} t[2^21] = i a[i] = t end return #a",
	} {
		check(body, oom(body))
	}
	check("return #string.rep('x', 2^20)", ":1048576\r\n")
	if got := c.Do(t, "CONFIG", "SET", "lua-max-memory", "0"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET lua-max-memory 0: %q", got)
	}
	check("return #string.rep('x', 2^25)", ":33554432\r\n")
	if got := c.Do(t, "CONFIG", "SET", "lua-max-memory", "lots"); got != "-ERR CONFIG SET failed (possibly related to argument 'lua-max-memory') - argument must be a memory value\r\n" {
		t.Errorf("CONFIG SET lua-max-memory lots: %q", got)
	}
}
