package qless

import (
	"regexp"
	"slices"
	"testing"

	"github.com/qlessd/qlessd/resp"
)

// TestFunctionsMatchLibrary: QLESS help lists the functions the Lua
// library dispatches, each once, with a synopsis and a description, and
// no others but those Go alone serves.
func TestFunctionsMatchLibrary(t *testing.T) {
	src, err := files.ReadFile("lua/api.lua")
	if err != nil {
		t.Fatal(err)
	}
	var lib []string
	for _, m := range regexp.MustCompile(`(?m)^API\['([^']+)'\] =`).FindAllStringSubmatch(string(src), -1) {
		lib = append(lib, m[1])
	}
	var table []string
	for _, f := range functions {
		if f.args == "" || f.doc == "" {
			t.Errorf("%s: no synopsis or no description", f.name)
		}
		if !f.goOnly {
			table = append(table, f.name)
		}
	}
	slices.Sort(lib)
	slices.Sort(table)
	if !slices.Equal(lib, table) {
		t.Fatalf("functions table %v\nLua API table   %v", table, lib)
	}
	for name := range fastPaths {
		if !slices.Contains(table, name) {
			t.Errorf("fast path %s is no function", name)
		}
	}
}

// TestHelpLines: the reply is Redis's HELP shape, an array of status lines:
// a header, then per function its synopsis and an indented description,
// then HELP.
func TestHelpLines(t *testing.T) {
	var rec resp.Recorder
	writeHelp(&rec)
	v := rec.Value()
	if v.Kind != resp.Array || len(v.Array) != 2*len(functions)+3 {
		t.Fatalf("reply %v", v)
	}
	for i, l := range v.Array {
		if l.Kind != resp.Status {
			t.Fatalf("line %d %q is not a status", i, l.Str)
		}
	}
	if got := v.Array[1].Str; got != "put "+functions[0].args {
		t.Errorf("first function %q", got)
	}
	if got := v.Array[len(v.Array)-2].Str; got != "HELP" {
		t.Errorf("last entry %q", got)
	}
}
