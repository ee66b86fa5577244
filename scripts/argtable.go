package scripts

import (
	"reflect"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Lua 5.1 gives a vararg function that does not use ... a local arg table
// ({...} with n). gopher-lua builds it on every call with an empty hash
// part, so setting n allocates a hash sized for 32 keys, about 2 KB; qless
// functions taking options (put, complete, tag...) pay it on every call.
// The compiler input is rewritten instead: such a function that names arg
// starts with "local arg = argtable(...)", a Go function building the same
// table with room for n alone. Using ... tells gopher-lua not to build its
// own; the new local shadows the one it declares. argtable reaches chunks
// as numStr does (concat.go).
const (
	argTableLocal  = "\x00argtable"
	argTableGlobal = "\x00qlessd_argtable"
)

func argTable(L *lua.LState) int {
	n := L.GetTop()
	t := L.CreateTable(n, 1)
	for i := 1; i <= n; i++ {
		t.RawSetInt(i, L.Get(i))
	}
	t.RawSetString("n", luaInt(int64(n)))
	L.Push(t)
	return 1
}

var functionExprType = reflect.TypeOf(ast.FunctionExpr{})

// rewriteArgTables applies the rewrite to a parsed chunk.
func rewriteArgTables(chunk []ast.Stmt) []ast.Stmt {
	found := false
	walkAST(reflect.ValueOf(chunk), func(n any) {
		fe, ok := n.(*ast.FunctionExpr)
		if !ok || !fe.ParList.HasVargs || usesVararg(reflect.ValueOf(fe.Stmts)) || !mentionsAny(&ast.DoBlockStmt{Stmts: fe.Stmts}, map[string]bool{"arg": true}) {
			return
		}
		line := fe.Line()
		if len(fe.Stmts) > 0 {
			line = fe.Stmts[0].Line()
		}
		fn := &ast.IdentExpr{Value: argTableLocal}
		va := &ast.Comma3Expr{}
		call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{va}}
		decl := &ast.LocalAssignStmt{Names: []string{"arg"}, Exprs: []ast.Expr{call}}
		for _, n := range []interface {
			SetLine(int)
			SetLastLine(int)
		}{fn, va, call, decl} {
			n.SetLine(line)
			n.SetLastLine(line)
		}
		fe.Stmts = append([]ast.Stmt{decl}, fe.Stmts...)
		found = true
	})
	if !found {
		return chunk
	}
	get := &ast.IdentExpr{Value: argTableGlobal}
	decl := &ast.LocalAssignStmt{Names: []string{argTableLocal}, Exprs: []ast.Expr{get}}
	if len(chunk) > 0 {
		get.SetLine(chunk[0].Line())
		decl.SetLine(chunk[0].Line())
		decl.SetLastLine(chunk[0].Line())
	}
	return append([]ast.Stmt{decl}, chunk...)
}

var comma3Type = reflect.TypeOf(ast.Comma3Expr{})

// usesVararg reports whether ... appears under v outside nested functions.
func usesVararg(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && usesVararg(v.Elem())
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if usesVararg(v.Index(i)) {
				return true
			}
		}
	case reflect.Struct:
		t := v.Type()
		if t == comma3Type {
			return true
		}
		if t == functionExprType {
			return false
		}
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() && usesVararg(v.Field(i)) {
				return true
			}
		}
	}
	return false
}
