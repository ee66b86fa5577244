package scripts

import (
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// TestFrameMirrorLayout checks callFrameMirror against the frames of a
// running gopher-lua: should an upgrade move callFrame's fields, this
// fails rather than operand names quietly disappearing.
func TestFrameMirrorLayout(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	// copies: the frames live on after probe returns, and run on
	var got1, got2 callFrameMirror
	var ptr2 *callFrameMirror
	var dbg1 *lua.Debug
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		d1, ok1 := L.GetStack(1)
		d2, ok2 := L.GetStack(2)
		if !ok1 || !ok2 {
			t.Fatal("no frames under probe")
		}
		if _, err := L.GetInfo("l", d1, lua.LNil); err != nil {
			t.Fatal(err)
		}
		dbg1 = d1
		got1 = *(*debugMirror)(unsafe.Pointer(d1)).frame
		ptr2 = (*debugMirror)(unsafe.Pointer(d2)).frame
		got2 = *ptr2
		if fn, pc, ok := frameOf(L, d1); !ok || fn != got1.Fn || pc != got1.Pc-1 {
			t.Errorf("frameOf = %p, %d, %v", fn, pc, ok)
		}
		return 0
	}))
	if err := L.DoString("function f()\n  local a = 1\n  probe(a)\nend\nf()"); err != nil {
		t.Fatal(err)
	}
	f := L.GetGlobal("f").(*lua.LFunction)
	if got1.Fn != f {
		t.Fatalf("the mirror's Fn is not the running function f")
	}
	if got1.Parent != ptr2 || got1.Idx != got2.Idx+1 {
		t.Fatalf("the mirror's Parent/Idx do not chain: %+v under %+v", got1, got2)
	}
	p := f.Proto
	if got1.Pc < 1 || got1.Pc > len(p.Code) || instr(p.Code[got1.Pc-1]).op() != lua.OP_CALL {
		t.Fatalf("the mirror's Pc %d is not just past f's CALL", got1.Pc)
	}
	if line := p.DbgSourcePositions[got1.Pc-1]; line != 3 || dbg1.CurrentLine != 3 {
		t.Fatalf("the mirror's Pc is on line %d, GetInfo says %d; want 3", line, dbg1.CurrentLine)
	}
}
