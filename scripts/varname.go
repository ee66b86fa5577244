package scripts

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 names the value a runtime error is about ("attempt to index local
// 'job' (a nil value)") by reading the function's code back from the
// failing instruction: the local variable the register holds at that
// point, if any, else what the instruction that last wrote the register
// read (a global, a field with a constant name, an upvalue, a method, or
// the register a MOVE copied). This does the same on gopher-lua's
// bytecode: Lua 5.1's opcodes plus MOVEN (a MOVE that runs the MOVEs after
// it), GETTABLEKS/SETTABLEKS (constant string keys) and NOP.

type instr uint32

func (i instr) op() int  { return int(i >> 26) }
func (i instr) a() int   { return int(i>>18) & 0xff }
func (i instr) b() int   { return int(i & 0x1ff) }
func (i instr) c() int   { return int(i>>9) & 0x1ff }
func (i instr) bx() int  { return int(i & 0x3ffff) }
func (i instr) sbx() int { return i.bx() - (1<<18-1)>>1 }

// rkConstant marks an RK operand that indexes the constants, not a register.
const rkConstant = 1 << 8

// objName describes register reg of p as Lua 5.1 does in an error raised
// at pc ("local 'x'", "global 'x'", "field 'x'", "upvalue 'x'", "method
// 'x'"), or returns "" where Lua gives no name.
func objName(p *lua.FunctionProto, pc, reg int) string {
	if n := localName(p, reg, pc); n != "" {
		return "local '" + n + "'"
	}
	return setterName(p, pc, lastSetter(p, pc, reg), reg)
}

// localName is the local variable held in register reg at pc: the
// reg-th of the locals in scope there, in declaration order. gopher-lua
// records a local's scope as the instructions StartPc to EndPc inclusive.
// The numeric and generic for statements' hidden locals ("(for index)")
// come into scope before their initial values are computed, in registers
// those computations use, where Lua 5.1 has them out of scope; they never
// hold a value an error is about, so they count as unnamed.
func localName(p *lua.FunctionProto, reg, pc int) string {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc > l.EndPc {
			continue
		}
		if reg == 0 {
			if strings.HasPrefix(l.Name, "(") {
				return ""
			}
			return l.Name
		}
		reg--
	}
	return ""
}

// lastSetter returns the index of the last instruction before end that
// wrote register reg, or -1. Like Lua 5.1 it reads the code from the start
// along one path: a forward jump is taken when it lands at or before end,
// a backward one never.
func lastSetter(p *lua.FunctionProto, end, reg int) int {
	last := -1
	for pc := 0; pc < end; pc++ {
		i := instr(p.Code[pc])
		if writes(i, reg) {
			last = pc
		}
		switch i.op() {
		case lua.OP_CLOSURE:
			// the upvalue descriptions after it are not instructions
			pc += int(p.FunctionPrototypes[i.bx()].NumUpvalues)
		case lua.OP_SETLIST:
			if i.c() == 0 {
				pc++ // the next word is SETLIST's block number
			}
		case lua.OP_JMP, lua.OP_FORPREP, lua.OP_FORLOOP:
			if dest := pc + 1 + i.sbx(); pc < dest && dest <= end {
				pc = dest - 1
			}
		}
	}
	return last
}

// writes reports whether i writes register reg. TEST counts as writing
// its register, as Lua 5.1's reading has it, so "(a or b).x" names nothing.
func writes(i instr, reg int) bool {
	a := i.a()
	switch i.op() {
	case lua.OP_LOADNIL:
		return a <= reg && reg <= i.b()
	case lua.OP_SELF:
		return reg == a || reg == a+1
	case lua.OP_CALL, lua.OP_TAILCALL:
		return reg >= a
	case lua.OP_VARARG:
		return reg >= a && (i.b() == 0 || reg <= a+i.b()-2)
	case lua.OP_TFORLOOP:
		return reg >= a+2
	case lua.OP_JMP, lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS,
		lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_RETURN, lua.OP_SETLIST, lua.OP_CLOSE, lua.OP_NOP:
		return false
	}
	return reg == a
}

// setterName names register reg from the instruction at that last wrote
// it, for an error raised at pc.
func setterName(p *lua.FunctionProto, pc, at, reg int) string {
	if at < 0 {
		return ""
	}
	i := instr(p.Code[at])
	switch i.op() {
	case lua.OP_GETGLOBAL:
		if s, ok := p.Constants[i.bx()].(lua.LString); ok {
			return "global '" + string(s) + "'"
		}
	case lua.OP_MOVE, lua.OP_MOVEN:
		// Lua names a copy from a lower register as that register is
		// named where the error is, not where the copy was made.
		if i.a() == reg && i.b() < reg {
			return objName(p, pc, i.b())
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		if i.a() == reg {
			return "field '" + keyName(p, at) + "'"
		}
	case lua.OP_SELF:
		return "method '" + keyName(p, at) + "'"
	case lua.OP_GETUPVAL:
		if b := i.b(); b < len(p.DbgUpvalues) {
			return "upvalue '" + p.DbgUpvalues[b] + "'"
		}
	case lua.OP_CALL:
		// The ".." rewrite (concat.go) passes each operand through numStr
		// (a chain's first with a second argument); Lua names the operand.
		if i.a() == reg && (i.b() == 2 || i.b() == 3) && i.c() == 2 && callsNumStr(p, at) {
			return setterName(p, pc, lastSetter(p, at, reg+1), reg+1)
		}
	}
	return ""
}

// keyName is Lua 5.1's reading of the key of the GETTABLE or SELF at pc: a
// constant string's text, "?" for anything else. Where Lua's compiler
// makes a constant key an operand of the instruction, gopher-lua's
// sometimes loads it into a register first (below the for statements'
// hidden locals, for one): its GETTABLEKS and SELF always have a constant
// string key, which the LOADK before them holds. Both compilers load a
// constant past the 256 an operand can index, and Lua names that "?".
func keyName(p *lua.FunctionProto, pc int) string {
	i := instr(p.Code[pc])
	k := -1
	if rk := i.c(); rk&rkConstant != 0 {
		k = rk &^ rkConstant
	} else if i.op() != lua.OP_GETTABLE {
		if at := lastSetter(p, pc, rk); at >= 0 && instr(p.Code[at]).op() == lua.OP_LOADK && instr(p.Code[at]).bx() < rkConstant {
			k = instr(p.Code[at]).bx()
		}
	}
	if k >= 0 {
		if s, ok := p.Constants[k].(lua.LString); ok {
			return string(s)
		}
	}
	return "?"
}

// callsNumStr reports whether the CALL at pc calls the chunk's numStr
// local, read from the local itself or as an upvalue.
func callsNumStr(p *lua.FunctionProto, pc int) bool {
	fnReg := instr(p.Code[pc]).a()
	at := lastSetter(p, pc, fnReg)
	if at < 0 {
		return false
	}
	i := instr(p.Code[at])
	switch i.op() {
	case lua.OP_MOVE, lua.OP_MOVEN:
		return i.a() == fnReg && localName(p, i.b(), pc) == numStrLocal
	case lua.OP_GETUPVAL:
		return i.a() == fnReg && i.b() < len(p.DbgUpvalues) && p.DbgUpvalues[i.b()] == numStrLocal
	}
	return false
}
