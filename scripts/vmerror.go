package scripts

import (
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// vmErrorText rewrites the message of a runtime error raised by the
// instruction a Lua frame is executing to Lua 5.1's text, naming the
// operand the error is about as Lua does ("attempt to call field 'foo' (a
// nil value)"). It runs while that frame is still on gopher-lua's call
// stack; dbg is the frame. Whatever it cannot tie to the instruction gets
// luaMessage's rewording alone.
func (s *state) vmErrorText(L *lua.LState, dbg *lua.Debug, msg string) (text string) {
	// The code reading is a nicety on an error path: should some code
	// shape trip it, the error still goes out, without the name.
	defer func() {
		if recover() != nil {
			text = luaMessage(msg)
		}
	}()
	fn, pc, ok := frameOf(L, dbg)
	if !ok {
		return luaMessage(msg)
	}
	f := faultFrame{L: L, dbg: dbg, p: fn.Proto, i: instr(fn.Proto.Code[pc])}
	b, ok := f.blame(msg)
	if !ok {
		return luaMessage(msg)
	}
	name := ""
	if b.reg >= 0 {
		name = s.visibleName(fn, objName(fn.Proto, pc, b.reg), b.v)
	}
	what := "a " + b.v.Type().String() + " value"
	if name != "" {
		what = name + " (" + what + ")"
	}
	return msg[:b.at] + "attempt to " + b.verb + " " + what
}

// faultFrame is the frame a runtime error was raised in, and the
// instruction raising it.
type faultFrame struct {
	L   *lua.LState
	dbg *lua.Debug
	p   *lua.FunctionProto
	i   instr
}

// operand is what Lua 5.1 blames: the register holding it (-1 for a
// constant, which has no name), its value, the verb, and where the text
// starts in gopher-lua's message, after its position.
type operand struct {
	reg  int
	v    lua.LValue
	verb string
	at   int
}

// get reads RK operand rk: a constant, or a register of the frame.
func (f faultFrame) get(rk int) (operand, bool) {
	if rk&rkConstant != 0 {
		return operand{reg: -1, v: f.p.Constants[rk&^rkConstant]}, true
	}
	name, v := f.L.GetLocal(f.dbg, rk+1)
	return operand{reg: rk, v: v}, name != ""
}

// blame finds the operand of a VM error message. It fails unless the
// instruction is one that raises that error and the operand's type is the
// one gopher-lua's message gives.
func (f faultFrame) blame(msg string) (operand, bool) {
	var o operand
	var ok bool
	want := ""
	op := f.i.op()
	switch {
	case reArith.MatchString(msg):
		m := reArith.FindStringSubmatch(msg)
		if m[1] == "concat" {
			if op != lua.OP_CONCAT {
				return o, false
			}
			o, ok = f.concatBlame(m[2], m[3])
			o.verb = "concatenate"
			break
		}
		if !isArith(op, m[1]) {
			return o, false
		}
		// Lua blames the first operand unless it converts to a number;
		// gopher-lua's message gives the types after that conversion.
		want = m[2]
		o, ok = f.get(f.i.b())
		if want == "number" {
			want = m[3]
			o, ok = f.get(f.i.c())
		}
		o.verb = "perform arithmetic on"
	case reIndex.MatchString(msg):
		want = reIndex.FindStringSubmatch(msg)[1]
		o, ok = f.indexBlame()
		o.verb = "index"
	case strings.HasSuffix(msg, callText):
		o, ok = f.callBlame()
		o.verb = "call"
	case strings.HasSuffix(msg, lenText) && op == lua.OP_LEN:
		o, ok = f.get(f.i.b())
		o.verb = "get length of"
	case strings.HasSuffix(msg, unmText) && op == lua.OP_UNM:
		o, ok = f.get(f.i.b())
		o.verb = "perform arithmetic on"
	}
	if !ok || (want != "" && o.v.Type().String() != want) {
		return o, false
	}
	o.at = textStart(msg)
	return o, true
}

func (f faultFrame) indexBlame() (operand, bool) {
	switch f.i.op() {
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
		return f.get(f.i.b())
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		return f.get(f.i.a())
	}
	return operand{}, false
}

func (f faultFrame) callBlame() (operand, bool) {
	switch f.i.op() {
	case lua.OP_CALL, lua.OP_TAILCALL:
		return f.get(f.i.a())
	case lua.OP_TFORLOOP:
		// Lua calls a copy of the iterator, which has no name.
		o, ok := f.get(f.i.a())
		o.reg = -1
		return o, ok
	}
	return operand{}, false
}

// textStart is where a runtime error's text starts after the position
// gopher-lua puts before it ("user_script:3: ").
func textStart(msg string) int {
	for _, re := range []*regexp.Regexp{reArith, reIndex} {
		if m := re.FindStringIndex(msg); m != nil {
			return m[0]
		}
	}
	for _, t := range []string{callText, lenText, unmText} {
		if strings.HasSuffix(msg, t) {
			return len(msg) - len(t)
		}
	}
	return 0
}

var arithOps = map[string]int{"add": lua.OP_ADD, "sub": lua.OP_SUB, "mul": lua.OP_MUL, "div": lua.OP_DIV, "mod": lua.OP_MOD, "pow": lua.OP_POW}

func isArith(op int, name string) bool {
	want, ok := arithOps[name]
	return ok && op == want
}

// concatBlame finds the operand of the CONCAT that Lua 5.1 blames. Both
// Lua and gopher-lua concatenate from the right, joining runs of strings
// and numbers, so the pair that fails is the rightmost value that is
// neither, with the string the values to its right joined into (with its
// left neighbour, when it is the last value). Lua blames the pair's left
// value unless that is a string or number. lt and rt are the types
// gopher-lua's message gives, which must agree: a __concat metamethod on
// the way would have changed the pair.
func (f faultFrame) concatBlame(lt, rt string) (operand, bool) {
	vals := map[int]lua.LValue{}
	bad := -1
	for r := f.i.c(); r >= f.i.b(); r-- {
		o, ok := f.get(r)
		if !ok {
			return o, false
		}
		vals[r] = o.v
		if bad < 0 && !lua.LVCanConvToString(o.v) {
			bad = r
		}
	}
	if bad < 0 {
		return operand{}, false
	}
	left, rightType := bad, "string"
	if bad == f.i.c() {
		left, rightType = bad-1, vals[bad].Type().String()
		if left < f.i.b() {
			return operand{}, false
		}
	}
	if vals[left].Type().String() != lt || rightType != rt {
		return operand{}, false
	}
	if lua.LVCanConvToString(vals[left]) {
		left++
	}
	return operand{reg: left, v: vals[left]}, true
}

// visibleName turns a name read from the code the compiler rewrites
// produce back into what Lua names in the source as written. Sandbox
// globals a cached chunk or a library reads once into locals (hoist.go)
// are globals to Lua; a cached chunk's per-call function (prefix.go) sees
// the chunk's locals as upvalues, which are locals to Lua. In those
// chunks, a local the user named after a sandbox global and gave that
// global's value reads as the global too.
func (s *state) visibleName(fn *lua.LFunction, name string, v lua.LValue) string {
	kind, n, ok := strings.Cut(name, " ")
	if !ok || (kind != "local" && kind != "upvalue") {
		return name
	}
	bare := strings.Trim(n, "'")
	if strings.HasPrefix(bare, "\x00") {
		return ""
	}
	hoisted := s.lib || s.activeChunk != nil
	if hoisted && fixedGlobals[bare] && s.realG.RawGetString(bare) == v {
		return "global " + n
	}
	if kind == "upvalue" && s.activeChunk != nil && s.activeChunk.fn == fn {
		return "local " + n
	}
	return name
}
