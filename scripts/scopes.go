package scripts

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua v1.1.1 records where a local variable's scope ends
// (DbgLocalInfo.EndPc) in the wrong entry: leaving a block, it writes the
// end into DbgLocals[register] rather than into the entry of the local in
// that register. Once a block's registers have been reused by later
// locals, the ends are scrambled, and reading a local's name back
// (varname.go) finds the wrong one. Where each scope starts is right.
//
// fixLocalScopes finds the ends again. It compiles the chunk a second time
// with a marker at each block boundary: an empty forward goto where a
// block's scopes open, an empty backward one where they close. Markers
// take no register, constant or local, so the second code is the first
// with two instructions (CLOSE 0, then JMP or NOP) added per marker; the
// two are lined up, and each local's scope ends at the last instruction
// before the close marker of the innermost block its start lies in. The
// for and repeat statements' locals come into scope before their body
// (the loop's hidden locals) or stay in scope after it (the until
// condition), so their markers go around the statement instead.
func fixLocalScopes(chunk []ast.Stmt, name string, proto *lua.FunctionProto) {
	m := &scopeMarker{undo: func() {}}
	defer func() { m.undo() }()
	marked := m.list(chunk, false)
	if m.n == 0 {
		return // no blocks: gopher-lua's ends are right
	}
	sentinel := compileMarked(marked, name)
	if sentinel == nil || !fixProtoScopes(proto, sentinel) {
		forgetScopes(proto)
	}
}

// compileMarked compiles the marked chunk, or returns nil.
func compileMarked(chunk []ast.Stmt, name string) (p *lua.FunctionProto) {
	defer func() {
		if recover() != nil {
			p = nil
		}
	}()
	p, err := lua.Compile(chunk, name)
	if err != nil {
		return nil
	}
	return p
}

// scopeMarker inserts the markers, remembering the statement lists it
// replaced so that undo leaves the syntax tree as it found it.
type scopeMarker struct {
	n    int
	undo func()
}

func (m *scopeMarker) set(field *[]ast.Stmt, v []ast.Stmt) {
	old, prev := *field, m.undo
	*field = v
	m.undo = func() {
		*field = old
		prev()
	}
}

func (m *scopeMarker) label() string {
	m.n++
	return "\x00scope" + strconv.Itoa(m.n)
}

// open is "goto l ::l::", compiled to CLOSE 0 and a JMP that goes nowhere
// (a NOP, or a JMP forward should the next instruction be a JMP).
func (m *scopeMarker) open() []ast.Stmt {
	l := m.label()
	return []ast.Stmt{&ast.GotoStmt{Label: l}, &ast.LabelStmt{Name: l}}
}

// close is "::l:: goto l", compiled to CLOSE 0 and a JMP back to it.
func (m *scopeMarker) close() []ast.Stmt {
	l := m.label()
	return []ast.Stmt{&ast.LabelStmt{Name: l}, &ast.GotoStmt{Label: l}}
}

// list marks the blocks in stmts; block says stmts is a block's body of
// its own, to be marked at both ends.
func (m *scopeMarker) list(stmts []ast.Stmt, block bool) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(stmts)+4)
	if block {
		out = append(out, m.open()...)
	}
	for _, st := range stmts {
		m.stmtExprs(st)
		switch x := st.(type) {
		case *ast.NumberForStmt:
			m.set(&x.Stmts, m.list(x.Stmts, false))
			out = append(append(append(out, m.open()...), x), m.close()...)
			continue
		case *ast.GenericForStmt:
			m.set(&x.Stmts, m.list(x.Stmts, false))
			out = append(append(append(out, m.open()...), x), m.close()...)
			continue
		case *ast.RepeatStmt:
			m.set(&x.Stmts, m.list(x.Stmts, false))
			out = append(append(append(out, m.open()...), x), m.close()...)
			continue
		case *ast.DoBlockStmt:
			m.markBody(&x.Stmts)
		case *ast.WhileStmt:
			m.markBody(&x.Stmts)
		case *ast.IfStmt:
			m.markBody(&x.Then)
			m.markBody(&x.Else)
		}
		out = append(out, st)
	}
	if block {
		out = append(out, m.close()...)
	}
	return out
}

// stmtExprs marks the bodies of the functions st's expressions define.
func (m *scopeMarker) stmtExprs(st ast.Stmt) {
	switch x := st.(type) {
	case *ast.AssignStmt:
		m.exprs(x.Lhs...)
		m.exprs(x.Rhs...)
	case *ast.LocalAssignStmt:
		m.exprs(x.Exprs...)
	case *ast.FuncCallStmt:
		m.exprs(x.Expr)
	case *ast.WhileStmt:
		m.exprs(x.Condition)
	case *ast.RepeatStmt:
		m.exprs(x.Condition)
	case *ast.IfStmt:
		m.exprs(x.Condition)
	case *ast.NumberForStmt:
		m.exprs(x.Init, x.Limit, x.Step)
	case *ast.GenericForStmt:
		m.exprs(x.Exprs...)
	case *ast.FuncDefStmt:
		m.exprs(x.Name.Func, x.Name.Receiver, x.Func)
	case *ast.ReturnStmt:
		m.exprs(x.Exprs...)
	}
}

// exprs marks the bodies of the functions es define.
func (m *scopeMarker) exprs(es ...ast.Expr) {
	for _, e := range es {
		switch x := e.(type) {
		case nil, *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr, *ast.StringExpr,
			*ast.Comma3Expr, *ast.IdentExpr:
		case *ast.FunctionExpr:
			if x != nil {
				m.set(&x.Stmts, m.list(x.Stmts, false))
			}
		case *ast.AttrGetExpr:
			m.exprs(x.Object, x.Key)
		case *ast.TableExpr:
			for _, f := range x.Fields {
				m.exprs(f.Key, f.Value)
			}
		case *ast.FuncCallExpr:
			m.exprs(x.Func, x.Receiver)
			m.exprs(x.Args...)
		default:
			m.exprs(operands(e)...)
		}
	}
}

// markBody marks a block's body; an empty one is left empty, as gopher-lua
// compiles an empty else differently from none.
func (m *scopeMarker) markBody(field *[]ast.Stmt) {
	if len(*field) > 0 {
		m.set(field, m.list(*field, true))
	}
}

// fixProtoScopes sets the ends of p's locals, and of its functions', from
// sentinel, the same function compiled with markers. It fails if the two
// do not line up.
func fixProtoScopes(p, sentinel *lua.FunctionProto) bool {
	if len(p.FunctionPrototypes) != len(sentinel.FunctionPrototypes) || len(p.DbgLocals) != len(sentinel.DbgLocals) {
		return false
	}
	a := &aligner{real: p.Code, sent: sentinel.Code, failed: map[[2]int]bool{}}
	if !a.walk(0, 0) {
		return false
	}
	blocks, ok := pairMarks(a.marks)
	if !ok {
		return false
	}
	for k, l := range p.DbgLocals {
		s := sentinel.DbgLocals[k].StartPc
		end, inner := len(p.Code)-1, -1
		for _, b := range blocks {
			if b.open.sent+2 <= s && s <= b.close.sent && b.open.sent > inner {
				end, inner = b.close.real-1, b.open.sent
			}
		}
		l.EndPc = end
	}
	for i, c := range p.FunctionPrototypes {
		if !fixProtoScopes(c, sentinel.FunctionPrototypes[i]) {
			return false
		}
	}
	return true
}

// forgetScopes leaves p and its functions with no local in scope but their
// parameters, rather than with scopes that name the wrong locals.
func forgetScopes(p *lua.FunctionProto) {
	for _, l := range p.DbgLocals {
		if l.StartPc == 0 {
			l.EndPc = len(p.Code) - 1
		} else {
			l.EndPc = l.StartPc - 1
		}
	}
	for _, c := range p.FunctionPrototypes {
		forgetScopes(c)
	}
}

// mark is a marker found in the marked code: where it is there (sent) and
// the index in the real code of the instruction after it (real).
type mark struct {
	sent, real int
	open       bool
}

type block struct{ open, close mark }

// pairMarks matches open and close marks as the parentheses they are.
func pairMarks(marks []mark) ([]block, bool) {
	var stack []mark
	var out []block
	for _, m := range marks {
		if m.open {
			stack = append(stack, m)
			continue
		}
		if len(stack) == 0 {
			return nil, false
		}
		out = append(out, block{open: stack[len(stack)-1], close: m})
		stack = stack[:len(stack)-1]
	}
	return out, len(stack) == 0
}

// aligner lines the real code up with the marked code, which is the same
// but for the markers. Where a marker and a real instruction look alike
// (gopher-lua emits CLOSE 0 for a block's upvalues, and a jump may follow)
// it tries the marker first and backtracks.
type aligner struct {
	real, sent []uint32
	marks      []mark
	failed     map[[2]int]bool
}

func (a *aligner) walk(i, j int) bool {
	if a.failed[[2]int{i, j}] {
		return false
	}
	for j < len(a.sent) {
		isMark, open := markerAt(a.sent, j)
		same := i < len(a.real) && sameInstr(a.real[i], a.sent[j])
		switch {
		case isMark && same:
			n := len(a.marks)
			a.marks = append(a.marks, mark{sent: j, real: i, open: open})
			if a.walk(i, j+2) {
				return true
			}
			a.marks = a.marks[:n]
			i, j = i+1, j+1
		case isMark:
			a.marks = append(a.marks, mark{sent: j, real: i, open: open})
			j += 2
		case same:
			i, j = i+1, j+1
		default:
			a.failed[[2]int{i, j}] = true
			return false
		}
	}
	return i == len(a.real)
}

// markerAt reports whether a marker starts at code[j], and which.
func markerAt(code []uint32, j int) (isMark, open bool) {
	if j+1 >= len(code) || code[j] != uint32(lua.OP_CLOSE)<<26 {
		return false, false
	}
	next := instr(code[j+1])
	switch {
	case next.op() == lua.OP_NOP, next.op() == lua.OP_JMP && next.sbx() >= 0:
		return true, true
	case next.op() == lua.OP_JMP && next.sbx() == -2:
		return true, false
	}
	return false, false
}

// sameInstr compares two instructions but for jump offsets, which the
// markers change; a jump that goes nowhere is a NOP in one and may not be
// in the other.
func sameInstr(r, s uint32) bool {
	ri, si := instr(r), instr(s)
	jumpy := func(op int) bool { return op == lua.OP_JMP || op == lua.OP_NOP }
	switch {
	case jumpy(ri.op()) || jumpy(si.op()):
		return jumpy(ri.op()) && jumpy(si.op())
	case ri.op() == lua.OP_FORPREP || ri.op() == lua.OP_FORLOOP:
		return ri.op() == si.op() && ri.a() == si.a()
	}
	return r == s
}
