package scripts

import (
	"runtime"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestThreadBytes checks threadBytes, what a coroutine counts for against
// the memory ceiling, against what one takes: a script holding many
// coroutines is stopped near its ceiling, not far past it.
func TestThreadBytes(t *testing.T) {
	s := newState(NewEngine(Options{}))
	defer s.L.Close()
	const n = 20000
	fn, err := s.L.LoadString("local t = {} for i = 1, 20000 do t[i] = coroutine.create(function() end) end return t")
	if err != nil {
		t.Fatal(err)
	}
	fn.Env = s.proxy
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s.L.Push(fn)
	s.L.Call(0, 1)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if _, ok := s.L.Get(-1).(*lua.LTable); !ok {
		t.Fatal("no table")
	}
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("a coroutine takes about %d bytes", per)
	if per > threadBytes || per < threadBytes/4 {
		t.Errorf("a coroutine takes about %d bytes; threadBytes is %d", per, threadBytes)
	}
}
