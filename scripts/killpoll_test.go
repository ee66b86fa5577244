package scripts

import (
	"strings"
	"testing"
)

// Built-ins that can work for seconds on a large input poll the kill
// switch, since gopher-lua checks it only between instructions. Here the
// first poll trips the switch, as SCRIPT KILL would while the built-in
// works: the script must end killed, where without polls it would run the
// built-in to the end and return its result.
func TestBuiltinsPollTheKillSwitch(t *testing.T) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	pollHook = func(k *killSwitch) { k.trip() }
	defer func() { pollHook = nil }()
	const big = "local t = {} for i = 1, 5000 do t[i] = 5000 - i end "
	for _, body := range []string{
		"return #string.rep('x', 64 * 1024 * 1024)",
		big + "return #table.concat(t, ',')",
		big + "table.sort(t) return t[1]",
		big + "table.sort(t, function(a, b) return a > b end) return t[1]",
		big + "return #cjson.encode(t)",
		"return #cjson.decode('[' .. string.rep('1,', 5000) .. '1]')",
		big + "return #cmsgpack.pack(t)",
		"local e = {} local x = {e, e} for i = 1, 12 do x = {x, x} end return #cmsgpack.pack(x)",
		"return #cmsgpack.unpack(string.rep('\\1', 5000))",
		"return select('#', cmsgpack.unpack('\\220\\19\\136' .. string.rep('\\1', 5000)))",
		"return (string.rep('a', 5000):gsub('a', 'b'))",
		"return string.rep('a', 5000):find('a*a*b')",
		"return string.rep('a', 5000):match('a-b')",
		"local n = 0 for w in string.rep('a', 5000):gmatch('a') do n = n + 1 end return n",
	} {
		got := show(eval(t, e, h, body))
		if !strings.HasPrefix(got, "ERR "+errScriptKilled) {
			t.Errorf("%s: %q, want the killed error", body, got)
		}
	}
}
