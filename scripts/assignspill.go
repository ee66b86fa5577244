package scripts

import (
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua v1.1.1 compiles an and/or expression assigned to an existing
// local straight into the local's register. An operand that decides the
// result when falsy (a in "x = a and b") is tested where it was computed
// and never copied to the local unless it is itself a local of the same
// function, so "x = tonumber('?') and 1" leaves x as it was instead of
// setting it to nil. A new local ("local x = ...") or any other target gets
// the expression's scratch register and is not affected.
//
// Short of forking it, such assignments are rewritten before compiling
// (spillAssign): the values go to fresh locals in a do block first, which
// compiles correctly, then to their targets.

// fixLostFalsy is an assignFixer spilling assignments gopher-lua
// compiles wrongly as above.
func fixLostFalsy(s *ast.AssignStmt, isLocal func(string) bool) ast.Stmt {
	for i, l := range s.Lhs {
		id, ok := l.(*ast.IdentExpr)
		if ok && i < len(s.Rhs) && isLocal(id.Value) && dropsFalsy(s.Rhs[i], isLocal) {
			return spillAssign(s, isLocal)
		}
	}
	return nil
}

// dropsFalsy reports whether gopher-lua's code for e, assigned to a local
// register, may jump past the assignment with a falsy operand's value
// still in its scratch register.
func dropsFalsy(e ast.Expr, isLocal func(string) bool) bool {
	l, ok := e.(*ast.LogicalOpExpr)
	return ok && lostOperand(l, true, true, isLocal)
}

// lostOperand follows gopher-lua's jumps: falseEnds and trueEnds tell
// whether e being falsy or truthy ends the whole expression with e's value.
// The compiler tests an operand that ends it when falsy but not when
// truthy (the left of an and) without copying it to the target, unless it
// is a constant, a comparison or a local of the function: those it writes
// to the target itself.
func lostOperand(e ast.Expr, falseEnds, trueEnds bool, isLocal func(string) bool) bool {
	switch x := e.(type) {
	case *ast.LogicalOpExpr:
		if x.Operator == "and" {
			return lostOperand(x.Lhs, falseEnds, false, isLocal) || lostOperand(x.Rhs, falseEnds, trueEnds, isLocal)
		}
		return lostOperand(x.Lhs, false, trueEnds, isLocal) || lostOperand(x.Rhs, falseEnds, trueEnds, isLocal)
	case *ast.NilExpr, *ast.FalseExpr, *ast.TrueExpr, *ast.NumberExpr, *ast.StringExpr, *ast.RelationalOpExpr:
		return false
	case *ast.IdentExpr:
		if isLocal(x.Value) {
			return false
		}
	}
	return falseEnds && !trueEnds
}

// spillPrefix starts the names of the rewrite's locals; no Lua source can
// spell them.
const spillPrefix = "\x00spill"

// spillAssign rewrites "l1, ..., ln = e1, ..., em" as
//
//	do
//	  local p1, ... = <table and key expressions of l1..ln that need it>
//	  local v1, ..., vn = e1, ..., em
//	  ln = vn; ...; l1 = v1
//	end
//
// which keeps Lua's order: targets' table and key expressions first, then
// every value, then the stores from the last target to the first. A table
// or key expression is kept in place when reading it later gives the same
// value: a constant, or a local the statement does not assign. Positions
// are those of the original nodes, so error messages name the same lines.
func spillAssign(s *ast.AssignStmt, isLocal func(string) bool) ast.Stmt {
	assigned := map[string]bool{}
	for _, l := range s.Lhs {
		if id, ok := l.(*ast.IdentExpr); ok && isLocal(id.Value) {
			assigned[id.Value] = true
		}
	}
	stable := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.NumberExpr, *ast.StringExpr, *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr:
			return true
		case *ast.IdentExpr:
			return isLocal(x.Value) && !assigned[x.Value]
		}
		return false
	}
	n := 0
	temp := func(at ast.Expr) *ast.IdentExpr {
		n++
		id := &ast.IdentExpr{Value: spillPrefix + strconv.Itoa(n)}
		setPos(id, at)
		return id
	}
	captures := &ast.LocalAssignStmt{}
	for _, l := range s.Lhs {
		a, ok := l.(*ast.AttrGetExpr)
		if !ok {
			continue
		}
		for _, part := range []*ast.Expr{&a.Object, &a.Key} {
			if !stable(*part) {
				id := temp(*part)
				captures.Names = append(captures.Names, id.Value)
				captures.Exprs = append(captures.Exprs, *part)
				*part = id
			}
		}
	}
	values := &ast.LocalAssignStmt{Exprs: s.Rhs}
	var stores []ast.Stmt
	for i := len(s.Lhs) - 1; i >= 0; i-- {
		v := temp(s.Lhs[i])
		values.Names = append([]string{v.Value}, values.Names...)
		st := &ast.AssignStmt{Lhs: []ast.Expr{s.Lhs[i]}, Rhs: []ast.Expr{v}}
		setPos(st, s.Lhs[i])
		stores = append(stores, st)
	}
	block := &ast.DoBlockStmt{}
	if len(captures.Names) > 0 {
		setPos(captures, s)
		block.Stmts = append(block.Stmts, captures)
	}
	setPos(values, s)
	setPos(block, s)
	block.Stmts = append(append(block.Stmts, values), stores...)
	return block
}

func setPos(n, from ast.PositionHolder) {
	n.SetLine(from.Line())
	n.SetLastLine(from.LastLine())
}
