package scripts

import (
	"os"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/resp"
)

func TestLibraryKeepsLibs(t *testing.T) {
	cases := []struct {
		src  string
		want bool
	}{
		{"local insert = table.insert\nlocal cjson = cjson\nreturn function(a) local t = {} insert(t, a) return cjson.encode(t) .. string.format('%d', 1) end", true},
		{"return function() table.x = 1 end", false},
		{"return function() function string.f() end end", false},
		{"local t = table\nreturn function() end", false},
		{"return function() return select('#', table) end", false},
		{"return function() return ('x'):rep(2), string:len() end", false},
		{"return function() return _G.table end", false},
		{"return function() return getmetatable('').__index end", false},
		{"return function() return loadstring('return 1')() end", false},
	}
	for _, c := range cases {
		chunk, err := parseChunk(c.src, chunkName)
		if err != nil {
			t.Fatal(err)
		}
		if got := libraryKeepsLibs(chunk); got != c.want {
			t.Errorf("%q: %v, want %v", c.src, got, c.want)
		}
	}
	// The qless library as qless.Library concatenates it (importing the
	// package here would be a cycle).
	var lib strings.Builder
	for _, name := range []string{"base", "queue", "job", "recurring", "worker", "api"} {
		b, err := os.ReadFile("../qless/lua/" + name + ".lua")
		if err != nil {
			t.Fatal(err)
		}
		lib.Write(b)
		lib.WriteString("\n")
	}
	chunk, err := parseChunk(lib.String(), chunkName)
	if err != nil {
		t.Fatal(err)
	}
	if !libraryKeepsLibs(chunk) {
		t.Error("the qless library is not recognised as keeping its hands off the library tables")
	}
}

// A library that changes a library table still has it put back.
func TestLibraryChangesAreRestored(t *testing.T) {
	e := NewEngine(Options{MaxIdleStates: 1})
	h := &fakeHost{data: map[string]string{}}
	if err := e.RegisterLibrary("bad", "return function(a) local r = tostring(table.extra) table.extra = a return r end"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		var rec resp.Recorder
		e.CallLibrary(h, "bad", [][]byte{[]byte("x")}, &rec)
		if got := show(rec.Value()); got != "nil" {
			t.Fatalf("call %d: %s", i, got)
		}
	}
}
