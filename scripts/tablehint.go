package scripts

import lua "github.com/yuin/gopher-lua"

// gopher-lua gives a table built by an empty constructor ({}) no hash part,
// and the first string key then allocates one sized for 32 entries, about
// 2 KB to clear, though most such tables (job = {}; job.jid = jid) hold a
// few fields. A non-zero hint of at most 8 makes Go allocate one 8-slot
// group on the first insert instead, and nothing before it. Only the size
// hint of OP_NEWTABLE changes; no table behaves differently.
const emptyTableHashHint = 1

// gopher-lua's instruction layout: opcode in the top 6 bits, C in bits 9-17.
const (
	opShift   = 26
	argCShift = 9
	argCMask  = 0x1ff
)

func hintEmptyTables(p *lua.FunctionProto) {
	for i, inst := range p.Code {
		if int(inst>>opShift) == lua.OP_NEWTABLE && (inst>>argCShift)&argCMask == 0 {
			p.Code[i] = inst | emptyTableHashHint<<argCShift
		}
	}
	for _, sub := range p.FunctionPrototypes {
		hintEmptyTables(sub)
	}
}
