package scripts

import (
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

// numStr also keeps ".." under the script's memory ceiling: the VM joins a
// chain's operands in one allocation, so a chain of a hundred strings each
// under the ceiling could take a hundred times it at once. numStr adds up
// the string operands of a chain (the rewrite passes a second argument to
// the chain's first non-literal operand, which starts a new sum) and
// refuses the concatenation, before the VM makes it, once they would take
// the script past its ceiling. Literal operands are small and left out.
func numStr(L *lua.LState) int {
	if k, ok := L.Context().(*killSwitch); ok {
		k.concatOperand(L, L.Get(1), L.GetTop() >= 2)
	}
	if n, ok := L.Get(1).(lua.LNumber); ok {
		L.Push(lua.LString(fmtNumber(float64(n))))
		return 1
	}
	L.Push(L.Get(1))
	return 1
}

// concatPass is the rewrite as a visit pass (passes.go): its visitor
// wraps the operands of each "..", after the numerals pass has read the
// literal ones as Lua does, and its finish marks the chains' starts and
// declares numStr's local.
func concatPass() (func(any), func([]ast.Stmt) []ast.Stmt) {
	var concats []*ast.StringConcatOpExpr
	visit := func(n any) {
		if x, ok := n.(*ast.StringConcatOpExpr); ok {
			x.Lhs, x.Rhs = wrapOperand(x.Lhs), wrapOperand(x.Rhs)
			concats = append(concats, x)
		}
	}
	finish := func(chunk []ast.Stmt) []ast.Stmt {
		if len(concats) == 0 {
			return chunk
		}
		markChainStarts(concats)
		get := &ast.IdentExpr{Value: numStrGlobal}
		decl := &ast.LocalAssignStmt{Names: []string{numStrLocal}, Exprs: []ast.Expr{get}}
		if len(chunk) > 0 {
			get.SetLine(chunk[0].Line())
			decl.SetLine(chunk[0].Line())
			decl.SetLastLine(chunk[0].Line())
		}
		return append([]ast.Stmt{decl}, chunk...)
	}
	return visit, finish
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

// markChainStarts gives the first wrapped operand of each chain of ".."
// (a head, and the operations its right operands make, a..b..c being
// a..(b..c)) numStr's second argument, which starts the chain's sum.
func markChainStarts(concats []*ast.StringConcatOpExpr) {
	inner := map[*ast.StringConcatOpExpr]bool{}
	for _, x := range concats {
		if r, ok := x.Rhs.(*ast.StringConcatOpExpr); ok {
			inner[r] = true
		}
	}
	for _, x := range concats {
		if inner[x] {
			continue
		}
		for c := x; ; {
			if startsChain(c.Lhs) {
				break
			}
			next, ok := c.Rhs.(*ast.StringConcatOpExpr)
			if !ok {
				startsChain(c.Rhs)
				break
			}
			c = next
		}
	}
}

// startsChain adds the start argument to e when it is a numStr call.
func startsChain(e ast.Expr) bool {
	call, ok := e.(*ast.FuncCallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	if id, ok := call.Func.(*ast.IdentExpr); !ok || id.Value != numStrLocal {
		return false
	}
	start := &ast.TrueExpr{}
	start.SetLine(call.Line())
	start.SetLastLine(call.LastLine())
	call.Args = append(call.Args, start)
	return true
}

// concatOperand counts a string operand of ".." against the script's
// memory ceiling (numStr).
func (k *killSwitch) concatOperand(L *lua.LState, v lua.LValue, start bool) {
	if start {
		k.chain = 0
	}
	s, ok := v.(lua.LString)
	if !ok {
		return
	}
	// The result is about to be made: its bytes count as granted, so that
	// a loop making large strings in few instructions is measured too.
	n := int64(len(s))
	k.chain += n
	g := &k.mem
	if g.limit <= 0 {
		return
	}
	if g.pending += n; k.chain > g.limit || (g.pending >= g.limit/16 && !g.fits(k.chain)) {
		g.refused = true
		L.Error(lua.LString(errNoMemory), 0)
	}
}
