package scripts

import (
	"reflect"

	"github.com/yuin/gopher-lua/ast"
)

// A global read in a script costs three table lookups: the empty _G proxy,
// its metatable's __index, then the real globals. The sandbox's own globals
// (redis, table, tonumber, cjson...) are bound once for a state's life: no
// script can assign them (the proxy refuses) or reach the real globals
// table (pairs(_G) hands out the proxy). So a chunk that runs once per
// state (a library, or a script's cached head, prefix.go) reads them once
// into locals that its functions keep as upvalues, which is what
// "local table = table" does by hand. Names the chunk assigns or declares
// as top-level locals anywhere are left alone.
var fixedGlobals = func() map[string]bool {
	m := map[string]bool{"redis": true, "_G": true, "__redis__err__handler": true}
	for _, n := range globalNames {
		m[n] = true
	}
	for _, mod := range Modules {
		m[mod.Name] = true
	}
	return m
}()

// hoistGlobals prepends "local a, b = a, b" for the sandbox globals chunk
// reads, or returns chunk unchanged when it reads none.
func hoistGlobals(chunk []ast.Stmt) []ast.Stmt {
	declared := map[string]bool{}
	for _, st := range chunk {
		if la, ok := st.(*ast.LocalAssignStmt); ok {
			for _, n := range la.Names {
				declared[n] = true
			}
		}
	}
	used := map[string]bool{}
	assigned := map[string]bool{}
	walkAST(reflect.ValueOf(chunk), func(v any) {
		switch x := v.(type) {
		case *ast.IdentExpr:
			used[x.Value] = true
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.IdentExpr); ok {
					assigned[id.Value] = true
				}
			}
		case *ast.FuncDefStmt:
			if id, ok := x.Name.Func.(*ast.IdentExpr); ok {
				assigned[id.Value] = true
			}
		}
	})
	var names []string
	for _, n := range globalNamesInOrder() {
		if used[n] && !assigned[n] && !declared[n] {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return chunk
	}
	st := &ast.LocalAssignStmt{Names: names}
	line := 0
	if len(chunk) > 0 {
		line = chunk[0].Line()
	}
	for _, n := range names {
		id := &ast.IdentExpr{Value: n}
		id.SetLine(line)
		id.SetLastLine(line)
		st.Exprs = append(st.Exprs, id)
	}
	st.SetLine(line)
	st.SetLastLine(line)
	return append([]ast.Stmt{st}, chunk...)
}

// globalNamesInOrder lists fixedGlobals in a set order, so one source
// always compiles to the same code.
func globalNamesInOrder() []string {
	out := []string{"redis", "_G", "__redis__err__handler"}
	out = append(out, globalNames...)
	for _, mod := range Modules {
		out = append(out, mod.Name)
	}
	return out
}

// isHoist reports whether st is "local a, b = a, b" over fixed globals:
// reading them cannot fail or differ between calls.
func isHoist(st *ast.LocalAssignStmt) bool {
	if len(st.Names) != len(st.Exprs) {
		return false
	}
	for i, n := range st.Names {
		id, ok := st.Exprs[i].(*ast.IdentExpr)
		if !ok || id.Value != n || !fixedGlobals[n] {
			return false
		}
	}
	return true
}
