package scripts

import (
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// mendNumeral rewrites a numeral gopher-lua's compiler would turn into NaN
// into one it reads as Lua 5.1 does. The compiler takes a numeral through
// strconv, whose range error (1e400) it answers with NaN; Lua 5.1 reads it
// with strtod, which gives infinity. The value is respelled in a form
// strconv takes ("+Inf"), so the compiler, constant folding included, sees
// Lua's number.
func mendNumeral(n *ast.NumberExpr) {
	if _, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
		return
	}
	if _, err := strconv.ParseFloat(n.Value, 64); err == nil {
		return
	}
	if f, ok := str2number(n.Value); ok {
		n.Value = strconv.FormatFloat(f, 'g', -1, 64)
	}
}

// numeralsPass is mendNumeral as a visit pass (passes.go).
func numeralsPass() (func(any), func([]ast.Stmt) []ast.Stmt) {
	return func(n any) {
		if x, ok := n.(*ast.NumberExpr); ok {
			mendNumeral(x)
		}
	}, nil
}
