package scripts

import "github.com/yuin/gopher-lua/ast"

// gopher-lua compiles an assignment differently when a name is a local of
// the function being compiled (a register) rather than an upvalue or a
// global, and some assignment rewrites (assignspill.go) depend on which.
// scopeWalk follows Lua's scoping rules as gopher-lua's compiler applies
// them, so a rewrite sees each assignment with the locals visible there.

// assignFixer may return a statement to put in place of an assignment.
// isLocal reports whether a name is a local of the enclosing function at
// that point.
type assignFixer func(s *ast.AssignStmt, isLocal func(string) bool) ast.Stmt

type scopeWalk struct {
	fix    assignFixer
	locals []string // the current function's visible locals, innermost last
}

// rewriteAssigns runs fix on every assignment under chunk, the main
// function's body, replacing those it returns a statement for.
func rewriteAssigns(chunk []ast.Stmt, fix assignFixer) {
	w := &scopeWalk{fix: fix}
	w.block(chunk)
}

func (w *scopeWalk) isLocal(name string) bool {
	for i := len(w.locals) - 1; i >= 0; i-- {
		if w.locals[i] == name {
			return true
		}
	}
	return false
}

func (w *scopeWalk) block(stmts []ast.Stmt) {
	mark := len(w.locals)
	w.stmts(stmts)
	w.locals = w.locals[:mark]
}

func (w *scopeWalk) stmts(stmts []ast.Stmt) {
	for i := range stmts {
		if s, ok := stmts[i].(*ast.AssignStmt); ok {
			w.exprs(s.Lhs)
			w.exprs(s.Rhs)
			if r := w.fix(s, w.isLocal); r != nil {
				stmts[i] = r
			}
			continue
		}
		w.stmt(stmts[i])
	}
}

func (w *scopeWalk) stmt(st ast.Stmt) {
	switch s := st.(type) {
	case *ast.LocalAssignStmt:
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				// local function f: f is in scope in its own body.
				w.locals = append(w.locals, s.Names[0])
				w.exprs(s.Exprs)
				return
			}
		}
		w.exprs(s.Exprs)
		w.locals = append(w.locals, s.Names...)
	case *ast.FuncCallStmt:
		w.expr(s.Expr)
	case *ast.DoBlockStmt:
		w.block(s.Stmts)
	case *ast.WhileStmt:
		w.expr(s.Condition)
		w.block(s.Stmts)
	case *ast.RepeatStmt:
		// The condition sees the body's locals.
		mark := len(w.locals)
		w.stmts(s.Stmts)
		w.expr(s.Condition)
		w.locals = w.locals[:mark]
	case *ast.IfStmt:
		w.expr(s.Condition)
		w.block(s.Then)
		w.block(s.Else)
	case *ast.NumberForStmt:
		w.exprs([]ast.Expr{s.Init, s.Limit, s.Step})
		w.loopBody([]string{s.Name}, s.Stmts)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs)
		w.loopBody(s.Names, s.Stmts)
	case *ast.FuncDefStmt:
		w.expr(s.Name.Func)
		w.expr(s.Name.Receiver)
		// function a:b() has self as its first local.
		w.function(s.Func, s.Name.Func == nil)
	case *ast.ReturnStmt:
		w.exprs(s.Exprs)
	}
}

func (w *scopeWalk) loopBody(names []string, body []ast.Stmt) {
	mark := len(w.locals)
	w.locals = append(w.locals, names...)
	w.block(body)
	w.locals = w.locals[:mark]
}

// function walks a nested function's body with its own locals: its
// parameters, self for a method, and arg for a vararg function (gopher-lua
// declares it in every function but the main chunk).
func (w *scopeWalk) function(f *ast.FunctionExpr, method bool) {
	outer := w.locals
	w.locals = nil
	if method {
		w.locals = append(w.locals, "self")
	}
	w.locals = append(w.locals, f.ParList.Names...)
	if f.ParList.HasVargs {
		w.locals = append(w.locals, "arg")
	}
	w.block(f.Stmts)
	w.locals = outer
}

func (w *scopeWalk) exprs(es []ast.Expr) {
	for _, e := range es {
		w.expr(e)
	}
}

// expr looks for function bodies inside an expression.
func (w *scopeWalk) expr(e ast.Expr) {
	switch x := e.(type) {
	case *ast.FunctionExpr:
		w.function(x, false)
	case *ast.AttrGetExpr:
		w.expr(x.Object)
		w.expr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			w.expr(f.Key)
			w.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		w.expr(x.Func)
		w.expr(x.Receiver)
		w.exprs(x.Args)
	case *ast.LogicalOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
	case *ast.RelationalOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
	case *ast.StringConcatOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		w.expr(x.Lhs)
		w.expr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		w.expr(x.Expr)
	case *ast.UnaryNotOpExpr:
		w.expr(x.Expr)
	case *ast.UnaryLenOpExpr:
		w.expr(x.Expr)
	}
}
