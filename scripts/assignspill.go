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
// Short of forking it, such assignments, and those whose order of stores
// goes wrong (assignorder.go), are rewritten before compiling
// (spillAssign): the values go to fresh locals in a do block first, which
// compiles correctly, then to their targets.

// losesFalsy reports whether gopher-lua's code for s can skip storing a
// falsy value to a local target as above.
func losesFalsy(s *ast.AssignStmt, sc localScope) bool {
	for i, l := range s.Lhs {
		id, ok := l.(*ast.IdentExpr)
		if ok && i < len(s.Rhs) && sc.isLocal(id.Value) && dropsFalsy(s.Rhs[i], sc.isLocal) {
			return true
		}
	}
	return false
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
// every value, then the stores from the last target to the first.
// Positions are those of the original nodes, so error messages name the
// same lines.
func spillAssign(s *ast.AssignStmt, isLocal func(string) bool) ast.Stmt {
	n := 0
	temp := func(at ast.Expr) *ast.IdentExpr {
		n++
		id := &ast.IdentExpr{Value: spillPrefix + strconv.Itoa(n)}
		setPos(id, at)
		return id
	}
	captures := captureTargets(s, isLocal, temp)
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

// captureTargets moves the table and key expressions of s's table targets
// into a local statement, in Lua 5.1's order: a constant stays; a local
// of the function stays, read where it is stored to, unless a target to
// its right assigns it, which copies it there; anything else is evaluated
// where it stands.
func captureTargets(s *ast.AssignStmt, isLocal func(string) bool, temp func(ast.Expr) *ast.IdentExpr) *ast.LocalAssignStmt {
	captures := &ast.LocalAssignStmt{}
	capture := func(part *ast.Expr) {
		id := temp(*part)
		captures.Names = append(captures.Names, id.Value)
		captures.Exprs = append(captures.Exprs, *part)
		*part = id
	}
	var kept []*ast.Expr // local names left in place so far
	for _, l := range s.Lhs {
		switch x := l.(type) {
		case *ast.IdentExpr:
			if !isLocal(x.Value) {
				continue
			}
			rest := kept[:0]
			for _, part := range kept {
				if (*part).(*ast.IdentExpr).Value == x.Value {
					capture(part)
				} else {
					rest = append(rest, part)
				}
			}
			kept = rest
		case *ast.AttrGetExpr:
			for _, part := range []*ast.Expr{&x.Object, &x.Key} {
				switch y := (*part).(type) {
				case *ast.NumberExpr, *ast.StringExpr, *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr:
				case *ast.IdentExpr:
					if isLocal(y.Value) {
						kept = append(kept, part)
					} else {
						capture(part)
					}
				default:
					capture(part)
				}
			}
		}
	}
	return captures
}

func setPos(n, from ast.PositionHolder) {
	n.SetLine(from.Line())
	n.SetLastLine(from.LastLine())
}
