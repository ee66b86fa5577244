package scripts

import "github.com/yuin/gopher-lua/ast"

// Lua evaluates every value of an assignment before it stores any, and
// stores from the last target to the first. gopher-lua v1.1.1 evaluates a
// value for a local of the function straight into the local's register,
// so what comes after sees the new value: "a, b = b, a" gives both b, a
// call made later in the statement sees it through a closure, and a table
// target indexes the new table. A local written twice keeps the second
// value, where Lua stores the first last. Its and/or code may also write a
// truthy operand into the local before the expression ends ("x = (y or z)
// and x" reads the new x). And when a table target's value is a local, it
// miscounts its scratch registers, so a global or upvalue target left of it
// gets another register's value ("u, t.k = 1, v" sets u to "k").
//
// fixAssignOrder spills (assignspill.go) the assignments where any of this
// can show, which gopher-lua then compiles with Lua's order.
func fixAssignOrder(s *ast.AssignStmt, sc localScope) ast.Stmt {
	if losesFalsy(s, sc) || storesClash(s, sc) || writesEarly(s, sc) {
		return spillAssign(s, sc.isLocal)
	}
	return nil
}

// localTarget returns the name of target i if it is a local of the
// function, or "".
func localTarget(s *ast.AssignStmt, i int, sc localScope) string {
	if id, ok := s.Lhs[i].(*ast.IdentExpr); ok && sc.isLocal(id.Value) {
		return id.Value
	}
	return ""
}

// storesClash reports a local assigned twice, and a table target whose
// table, key or value is a local that may change before gopher-lua's code
// stores to it (where Lua's would not), or whose value is a local right of
// a target it miscounts registers for.
func storesClash(s *ast.AssignStmt, sc localScope) bool {
	assigned := map[string]bool{}
	for i := range s.Lhs {
		if n := localTarget(s, i, sc); n != "" {
			if assigned[n] {
				return true
			}
			assigned[n] = true
		}
	}
	for i, l := range s.Lhs {
		a, ok := l.(*ast.AttrGetExpr)
		if ok && tableTargetClash(s, i, a, assigned, sc) {
			return true
		}
	}
	return false
}

// tableTargetClash looks at target i, a[key]. gopher-lua indexes a local
// table where it stores, as Lua does; it copies a local key before the
// values, where Lua reads it where it stores; and it takes a local value
// where it stores, where Lua copies it when it comes to it.
func tableTargetClash(s *ast.AssignStmt, i int, a *ast.AttrGetExpr, assigned map[string]bool, sc localScope) bool {
	if id, ok := a.Object.(*ast.IdentExpr); ok && assigned[id.Value] {
		return true
	}
	if id, ok := a.Key.(*ast.IdentExpr); ok && sc.isLocal(id.Value) && sc.captured(id.Value) {
		for _, v := range s.Rhs {
			if mayObserve(v, id.Value, true) {
				return true
			}
		}
	}
	if i >= len(s.Rhs) {
		return false
	}
	id, ok := s.Rhs[i].(*ast.IdentExpr)
	if !ok || !sc.isLocal(id.Value) {
		return false
	}
	if assigned[id.Value] {
		return true
	}
	for _, l := range s.Lhs[:i] {
		// Its register count goes wrong from here leftwards; some
		// identifier targets take their values by that count.
		if _, ident := l.(*ast.IdentExpr); ident {
			return true
		}
	}
	if sc.captured(id.Value) {
		for _, v := range s.Rhs[i+1:] {
			if mayObserve(v, id.Value, true) {
				return true
			}
		}
	}
	return false
}

// writesEarly reports whether something evaluated or stored after a local
// target's value may see the local already changed: a later value, a
// later operand of an and/or that wrote the local before it ended, or, if
// the local is captured, a metamethod run by a store Lua makes before the
// local's.
func writesEarly(s *ast.AssignStmt, sc localScope) bool {
	m := len(s.Rhs)
	multi := isMultiValue(s.Rhs[m-1])
	for i := range s.Lhs {
		n := localTarget(s, i, sc)
		// The last value, if it has several, goes to the targets it
		// covers through scratch registers, stored with the others.
		if n == "" || (i >= m-1 && multi) {
			continue
		}
		captured := sc.captured(n)
		if captured && hasTableTarget(s.Lhs[i+1:]) {
			return true
		}
		if i >= m {
			continue // set to nil after every value
		}
		if l, ok := s.Rhs[i].(*ast.LogicalOpExpr); ok && writesBeforeEnd(l, n, captured) {
			return true
		}
		for _, later := range s.Rhs[i+1:] {
			if mayObserve(later, n, captured) {
				return true
			}
		}
	}
	return false
}

func hasTableTarget(lhs []ast.Expr) bool {
	for _, l := range lhs {
		if _, ok := l.(*ast.AttrGetExpr); ok {
			return true
		}
	}
	return false
}

func isMultiValue(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.FuncCallExpr:
		return !x.AdjustRet
	case *ast.Comma3Expr:
		return !x.AdjustRet
	}
	return false
}

// writesBeforeEnd follows gopher-lua's code for e assigned to local n: an
// operand that continues the expression when truthy although it is tested
// for truth (the left of an or inside the left of an and) is written to n
// when truthy, unless it is a constant or a comparison, which jump
// instead. It reports whether an operand after such a write may see n.
func writesBeforeEnd(e *ast.LogicalOpExpr, n string, captured bool) bool {
	written := false
	var walk func(e ast.Expr, trueEnds, onTrue bool) bool
	walk = func(e ast.Expr, trueEnds, onTrue bool) bool {
		switch x := e.(type) {
		case *ast.LogicalOpExpr:
			if x.Operator == "and" {
				return walk(x.Lhs, false, false) || walk(x.Rhs, trueEnds, onTrue)
			}
			return walk(x.Lhs, trueEnds, true) || walk(x.Rhs, trueEnds, onTrue)
		case *ast.NilExpr, *ast.FalseExpr, *ast.TrueExpr, *ast.NumberExpr, *ast.StringExpr, *ast.RelationalOpExpr:
			return written && mayObserve(e, n, captured)
		}
		if written && mayObserve(e, n, captured) {
			return true
		}
		if id, ok := e.(*ast.IdentExpr); ok && id.Value == n {
			return false // writes n's own value
		}
		written = written || (onTrue && !trueEnds)
		return false
	}
	return walk(e, true, false)
}

// mayObserve reports whether evaluating e may read local n: e names it, or
// n is captured and e may run Lua code (a call, or an operation a
// metamethod can take over). Making a closure runs nothing.
func mayObserve(e ast.Expr, n string, captured bool) bool {
	switch x := e.(type) {
	case *ast.IdentExpr:
		return x.Value == n
	case *ast.FunctionExpr, nil:
		return false
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if mayObserve(f.Key, n, captured) || mayObserve(f.Value, n, captured) {
				return true
			}
		}
		return false
	case *ast.FuncCallExpr:
		if captured {
			return true
		}
		for _, a := range x.Args {
			if mayObserve(a, n, captured) {
				return true
			}
		}
		return mayObserve(x.Func, n, captured) || mayObserve(x.Receiver, n, captured)
	case *ast.AttrGetExpr:
		return captured || mayObserve(x.Object, n, captured) || mayObserve(x.Key, n, captured)
	case *ast.LogicalOpExpr, *ast.UnaryNotOpExpr:
	default:
		if captured && len(operands(e)) > 0 {
			return true
		}
	}
	for _, o := range operands(e) {
		if mayObserve(o, n, captured) {
			return true
		}
	}
	return false
}
