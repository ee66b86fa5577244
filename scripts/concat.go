package scripts

import (
	"reflect"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua's VM turns numbers into text for ".." with Go's formatting
// (1234567.5 .. ” gives "1.2345675e+06"), not Lua's "%.14g". Short of
// forking it, the compiler input is rewritten: each operand of ".." that
// is not a string literal goes through numStr, which formats numbers as Lua
// does and passes everything else through untouched, so strings, errors and
// __concat metamethods behave as before. Number literals are converted at
// compile time. numStr reaches each chunk as a local taken once from a
// global name no Lua source can spell.
const (
	numStrLocal  = "\x00numstr"
	numStrGlobal = "\x00qlessd_numstr"
)

func numStr(L *lua.LState) int {
	if n, ok := L.Get(1).(lua.LNumber); ok {
		L.Push(lua.LString(fmtNumber(float64(n))))
		return 1
	}
	L.Push(L.Get(1))
	return 1
}

// rewriteChunk applies the rewrite to a parsed chunk, and in the same walk
// mends the numerals gopher-lua cannot read (numlit.go).
func rewriteChunk(chunk []ast.Stmt) []ast.Stmt {
	found := false
	walkAST(reflect.ValueOf(chunk), func(n any) {
		switch x := n.(type) {
		case *ast.StringConcatOpExpr:
			x.Lhs, x.Rhs = wrapOperand(x.Lhs), wrapOperand(x.Rhs)
			found = true
		case *ast.NumberExpr:
			mendNumeral(x)
		}
	})
	if !found {
		return chunk
	}
	get := &ast.IdentExpr{Value: numStrGlobal}
	decl := &ast.LocalAssignStmt{Names: []string{numStrLocal}, Exprs: []ast.Expr{get}}
	if len(chunk) > 0 {
		get.SetLine(chunk[0].Line())
		decl.SetLine(chunk[0].Line())
		decl.SetLastLine(chunk[0].Line())
	}
	return append([]ast.Stmt{decl}, chunk...)
}

func wrapOperand(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringExpr, *ast.StringConcatOpExpr:
		return e
	case *ast.NumberExpr:
		if f, ok := str2number(x.Value); ok {
			s := &ast.StringExpr{Value: fmtNumber(f)}
			s.SetLine(x.Line())
			s.SetLastLine(x.LastLine())
			return s
		}
	}
	fn := &ast.IdentExpr{Value: numStrLocal}
	fn.SetLine(e.Line())
	fn.SetLastLine(e.LastLine())
	call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{e}, AdjustRet: true}
	call.SetLine(e.Line())
	call.SetLastLine(e.LastLine())
	return call
}
