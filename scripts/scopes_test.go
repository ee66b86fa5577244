package scripts

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestLocalScopesAfterBlocks checks the scope ends fixLocalScopes sets
// where gopher-lua's own are scrambled: locals declared after a block
// take the registers the block's locals had.
func TestLocalScopesAfterBlocks(t *testing.T) {
	for src, want := range map[string]string{
		"local t = {} do local a, b = 1, 2 end local c = 5 return #c":                           "local 'c'",
		"local t = {} for i = 1, 2 do local x = i end local s, d = 1, 5 return #d":              "local 'd'",
		"local a = {} if a then local x = 1 else local y = 2 end local z = 'q' return #z":       "local 'z'",
		"local n = 0 repeat local m = n; n = n + 1 until #m > 1":                                "local 'm'",
		"local f = function() local a = 1 while a do local q = a end local r = 1 return #r end": "local 'r'",
	} {
		p, err := compile(src, chunkName)
		if err != nil {
			t.Fatal(err)
		}
		if got := lenOperandName(p); got != want {
			t.Errorf("%s: the # operand is %q, want %q", src, got, want)
		}
	}
}

// lenOperandName names the operand of the first LEN in p or its functions.
func lenOperandName(p *lua.FunctionProto) string {
	for pc, c := range p.Code {
		if i := instr(c); i.op() == lua.OP_LEN {
			return objName(p, pc, i.b())
		}
	}
	for _, f := range p.FunctionPrototypes {
		if n := lenOperandName(f); n != "" {
			return n
		}
	}
	return ""
}
