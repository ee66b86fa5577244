package scripts

import (
	"reflect"

	"github.com/yuin/gopher-lua/ast"
)

// After every call restore compares each field of the library tables
// (table, string, redis...) with its snapshot: over a hundred lookups,
// several percent of a qless call. A library chunk that never gets hold of
// one of those tables cannot change them, so after its calls the compare
// is skipped (libraryKeepsLibs).
//
// The tables are reached by name only: its arguments are strings, and what
// the library functions return are fresh tables or plain values. So a chunk
// keeps its hands off when each mention of a library table's name reads a
// field (table.insert, not table.x = f, t = table, f(table) or
// table:insert()), apart from "local table = table" aliases, and it never
// names what leads to them otherwise: _G (whose fields they are),
// getmetatable (the string metatable leads to string), load and loadstring
// (chunks that could name _G).
var (
	libTableNames = map[string]bool{"table": true, "string": true, "math": true, "redis": true,
		"coroutine": true, "cjson": true, "cmsgpack": true, "bit": true, "struct": true}
	libLeaks = map[string]bool{"_G": true, "getmetatable": true, "load": true, "loadstring": true}
)

func libraryKeepsLibs(chunk []ast.Stmt) bool {
	targets := map[*ast.AttrGetExpr]bool{}
	aliases := map[*ast.IdentExpr]bool{}
	reads := map[*ast.IdentExpr]bool{}
	walkAST(reflect.ValueOf(chunk), func(v any) {
		switch x := v.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if a, ok := l.(*ast.AttrGetExpr); ok {
					targets[a] = true
				}
			}
		case *ast.FuncDefStmt:
			if a, ok := x.Name.Func.(*ast.AttrGetExpr); ok {
				targets[a] = true
			}
		}
	})
	walkLocalsAndFields(reflect.ValueOf(chunk), func(la *ast.LocalAssignStmt) {
		for i, n := range la.Names {
			if i < len(la.Exprs) {
				if id, ok := la.Exprs[i].(*ast.IdentExpr); ok && id.Value == n {
					aliases[id] = true
				}
			}
		}
	}, func(a *ast.AttrGetExpr) {
		if id, ok := a.Object.(*ast.IdentExpr); ok && !targets[a] {
			reads[id] = true
		}
	})
	safe := true
	walkAST(reflect.ValueOf(chunk), func(v any) {
		id, ok := v.(*ast.IdentExpr)
		switch {
		case !ok:
		case libLeaks[id.Value]:
			safe = false
		case libTableNames[id.Value] && !reads[id] && !aliases[id]:
			safe = false
		}
	})
	return safe
}

var localAssignType = reflect.TypeOf(ast.LocalAssignStmt{})

// walkLocalsAndFields calls local for every local declaration and field
// for every field access under v.
func walkLocalsAndFields(v reflect.Value, local func(*ast.LocalAssignStmt), field func(*ast.AttrGetExpr)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkLocalsAndFields(v.Elem(), local, field)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkLocalsAndFields(v.Index(i), local, field)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				walkLocalsAndFields(v.Field(i), local, field)
			}
		}
		if !v.CanAddr() {
			return
		}
		switch t {
		case localAssignType:
			local(v.Addr().Interface().(*ast.LocalAssignStmt))
		case attrGetType:
			field(v.Addr().Interface().(*ast.AttrGetExpr))
		}
	}
}

var attrGetType = reflect.TypeOf(ast.AttrGetExpr{})
