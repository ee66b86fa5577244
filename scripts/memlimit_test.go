package scripts

import (
	"runtime"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/resp"
)

// A script past its memory ceiling (lua-max-memory) fails with Redis's
// reply for a Lua allocation that failed, whichever way it took the
// memory; the engine serves the next call. Each script here takes several
// times the 32 MB ceiling. The ceiling counts from the heap in use when a
// script first takes much, garbage included: each case starts collected.
func TestMemoryCeiling(t *testing.T) {
	e := NewEngine(Options{MaxMemory: 32 << 20})
	h := &copyingHost{fakeHost{data: map[string]string{"big": strings.Repeat("x", 1<<20)}}}
	const mb = "local mb = string.rep('x', 2^20) "
	for _, body := range []string{
		"return #string.rep('x', 2^31 - 1)",
		"return #string.rep(string.rep('x', 2^20), 2^31 - 1)",
		mb + "local t = {} for i = 1, 300 do t[i] = mb .. i end return #t",
		mb + "return #(mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. " +
			"mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. " +
			"mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. " +
			"mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. mb .. 'x')",
		mb + "local t = {} for i = 1, 300 do t[i] = mb end return #table.concat(t)",
		mb + "local t = {} for i = 1, 300 do t[i] = 'a' end return #table.concat(t, mb)",
		"local t = {} for i = 1, 1e8 do t[i] = i end return #t",
		"local t = {} for i = 1, 1e8 do t[#t + 1] = {} end return #t",
		"local t = {} for i = 1, 1e6 do t[i] = coroutine.create(function() end) end return #t",
		mb + "local t = {} for i = 1, 300 do t[i] = mb end return #cjson.encode(t)",
		"return #cjson.decode('[' .. string.rep('1,', 2^22) .. '1]')",
		mb + "local t = {} for i = 1, 300 do t[i] = mb end return #cmsgpack.pack(t)",
		"local s = string.rep('x', 1024) local x = {s, s, s, s} for i = 1, 14 do x = {x, x, x, x} end return #cmsgpack.pack(x)",
		mb + "local t = {} for i = 1, 300 do t[i] = mb end return #struct.pack(string.rep('c0', 300), unpack(t))",
		mb + "local t = {} for i = 1, 300 do t[i] = mb end return #string.format(string.rep('%s', 300), unpack(t))",
		"local t = {} for i = 1, 300 do t[i] = redis.call('get', 'big') end return #t",
		mb + "local t = {} for i = 1, 300 do t[i] = mb end return t",
		"local e = {} local x = {e, e} for i = 1, 40 do x = {x, x} end return x",
		// gopher-lua fills the array part with nils up to an integer key.
		"local a = {} for i = 1, 100 do local t = {} t[2^22] = i a[i] = t end return #a",
		"return #cmsgpack.unpack('\\129\\206\\0\\255\\255\\255\\1')",
		"local t = {} table.insert(t, 2^24 - 1, 1) return #t",
	} {
		runtime.GC()
		want := "ERR Error running script " + SHA1([]byte(body)) + ", not enough memory"
		if got := show(eval(t, e, h, body)); got != want {
			t.Errorf("%.100s...: %.200q", body, got)
		}
		if got := show(eval(t, e, h, "return 'still here'")); got != "still here" {
			t.Fatalf("the call after: %q", got)
		}
	}
}

// Within the ceiling: what a script holds at once counts, not what it
// made over its life, and a refused allocation can be caught, as a failed
// allocation can in Lua.
func TestMemoryCeilingCountsWhatIsHeld(t *testing.T) {
	e := NewEngine(Options{MaxMemory: 64 << 20})
	h := &fakeHost{data: map[string]string{}}
	for _, c := range []struct{ body, want string }{
		{"local mb = string.rep('x', 2^20) local n = 0 for i = 1, 500 do n = n + #(mb .. 'x') end return n", "524288500"},
		{"local n = 0 for i = 1, 200 do n = n + #string.rep('x', 2^20) end return n", "209715200"},
		{"local n = 0 for i = 1, 200 do local t = {} for j = 1, 1e4 do t[j] = j end n = n + #t end return n", "2000000"},
		{"return {pcall(string.rep, 'x', 2^31 - 1)}", "[(nil) not enough memory]"},
		{"local ok, e = pcall(string.rep, 'x', 2^31 - 1) return #string.rep('x', 2^20)", "1048576"},
	} {
		if got := show(eval(t, e, h, c.body)); got != c.want {
			t.Errorf("%s: %q, want %q", c.body, got, c.want)
		}
	}
}

// A library call (the qless library) has no ceiling: its callers are
// trusted, and it must not fail for a user's setting.
func TestMemoryCeilingSparesLibraries(t *testing.T) {
	e := NewEngine(Options{MaxMemory: 1 << 20})
	h := &fakeHost{data: map[string]string{}}
	if err := e.RegisterLibrary("lib", "return function(n) return #string.rep('x', tonumber(n)) end"); err != nil {
		t.Fatal(err)
	}
	var rec resp.Recorder
	e.CallLibrary(h, "lib", [][]byte{[]byte("4194304")}, &rec)
	if got := show(rec.Value()); got != "4194304" {
		t.Fatalf("library call over the scripts' ceiling: %q", got)
	}
}

// copyingHost answers GET with a fresh copy of the value, as the store
// does, so that the replies a script keeps take memory.
type copyingHost struct{ fakeHost }

func (h *copyingHost) Call(args [][]byte, w resp.Writer) {
	if strings.EqualFold(string(args[0]), "get") {
		w.WriteBulk([]byte(h.data[string(args[1])]))
		return
	}
	h.fakeHost.Call(args, w)
}
