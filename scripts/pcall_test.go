package scripts

import (
	"runtime"
	"testing"

	"github.com/qlessd/qlessd/resp"
	lua "github.com/yuin/gopher-lua"
)

// TestHelperBytes checks helperBytes, what a new pcall helper thread counts
// for against the memory ceiling, against what one takes.
func TestHelperBytes(t *testing.T) {
	s := newState(NewEngine(Options{}))
	defer s.L.Close()
	const n = 500
	helpers := make([]*lua.LState, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		helpers = append(helpers, newHelper(s.L))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("a helper takes about %d bytes", per)
	if per > helperBytes || per < helperBytes/2 {
		t.Errorf("a helper takes about %d bytes; helperBytes is %d", per, helperBytes)
	}
	runtime.KeepAlive(helpers)
}

// A library call runs under a PCall without an error function, where
// gopher-lua closed every open upvalue of the thread at the first error a
// pcall caught.
func TestLibraryPcallKeepsUpvalues(t *testing.T) {
	e := NewEngine(Options{})
	h := &fakeHost{data: map[string]string{}}
	src := `return function(how)
  local x = 1
  local function inc() x = x + 1 end
  if how == 'pcall' then pcall(error, 'a')
  elseif how == 'xpcall' then xpcall(function() error('a') end, function(e) return e end)
  elseif how == 'nested' then pcall(function() pcall(error, 'a') inc() error('b') end)
  elseif how == 'call' then pcall(redis.call, 'nosuch') end
  inc()
  return x
end`
	if err := e.RegisterLibrary("upv", src); err != nil {
		t.Fatal(err)
	}
	for how, want := range map[string]string{"pcall": "2", "xpcall": "2", "nested": "3", "call": "2"} {
		var rec resp.Recorder
		e.CallLibrary(h, "upv", [][]byte{[]byte(how)}, &rec)
		if got := show(rec.Value()); got != want {
			t.Errorf("%s: got %s, want %s", how, got, want)
		}
	}
}

// Whatever a script does with protected calls and coroutines, its state
// goes back to the pool with no protected call, resume or C call counted,
// and a bounded number of spare helpers.
func TestProtectedCallsUnwind(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	for _, body := range []string{
		"local function f(n) local ok, e = pcall(f, n+1) return e end return f(1)",
		"local function f(n) return xpcall(function() return f(n+1) end, function(m) error(m) end) end return f(1)",
		"local n = 0 local function f() n = n + 1 coroutine.wrap(f)() end return pcall(f)",
		"local co = coroutine.create(function() pcall(coroutine.yield) coroutine.yield() end) coroutine.resume(co) return 1",
		"pcall(function() error('x') end) error('out')",
		"local co = coroutine.wrap(function() pcall(function() local c = coroutine.wrap(function() error('in') end) c() end) coroutine.yield(1) end) co() error('after')",
	} {
		eval(t, e, h, body)
		if len(e.idle) != 1 {
			t.Fatalf("%s: no idle state", body)
		}
		s := e.idle[0]
		if len(s.pcalls) != 0 || len(s.resumers) != 0 || s.ccalls != 0 || len(s.spare) > spareHelpers {
			t.Errorf("%s: left pcalls %d, resumers %d, ccalls %d, spare %d", body, len(s.pcalls), len(s.resumers), s.ccalls, len(s.spare))
		}
	}
}
