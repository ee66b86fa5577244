package scripts

import "github.com/yuin/gopher-lua/ast"

// gopher-lua compiles an assignment differently when a name is a local of
// the function being compiled (a register) rather than an upvalue or a
// global, and some assignment rewrites (assignspill.go) depend on which.
// scopeWalk follows Lua's scoping rules as gopher-lua's compiler applies
// them, so a rewrite sees each assignment with the locals visible there.

// localScope answers for the function around an assignment.
type localScope interface {
	// isLocal reports whether name is one of the function's locals there.
	isLocal(name string) bool
	// captured reports whether that local is also an upvalue of some
	// function nested in it, which can then read or set it whenever it
	// runs.
	captured(name string) bool
}

// assignFixer may return a statement to put in place of an assignment.
type assignFixer func(s *ast.AssignStmt, sc localScope) ast.Stmt

type localVar struct {
	name string
	id   int // declarations numbered in walk order
}

type scopeWalk struct {
	fix      assignFixer // nil while finding captured locals
	funcs    [][]localVar
	ids      int
	upvalues map[int]bool // ids of captured locals
}

// rewriteAssigns runs fix on every assignment under chunk, the main
// function's body, replacing those it returns a statement for. A first
// walk finds the captured locals, as a closure may come after the
// assignment it matters to.
func rewriteAssigns(chunk []ast.Stmt, fix assignFixer) {
	find := &scopeWalk{upvalues: map[int]bool{}, funcs: [][]localVar{nil}}
	find.block(chunk)
	w := &scopeWalk{fix: fix, upvalues: find.upvalues, funcs: [][]localVar{nil}}
	w.block(chunk)
}

// lookup finds the innermost declaration of name, and how many functions
// out it is (0: the current one), or -1.
func (w *scopeWalk) lookup(name string) (localVar, int) {
	for depth := 0; depth < len(w.funcs); depth++ {
		vars := w.funcs[len(w.funcs)-1-depth]
		for i := len(vars) - 1; i >= 0; i-- {
			if vars[i].name == name {
				return vars[i], depth
			}
		}
	}
	return localVar{}, -1
}

func (w *scopeWalk) isLocal(name string) bool {
	_, depth := w.lookup(name)
	return depth == 0
}

func (w *scopeWalk) captured(name string) bool {
	v, depth := w.lookup(name)
	return depth == 0 && w.upvalues[v.id]
}

func (w *scopeWalk) use(name string) {
	if v, depth := w.lookup(name); depth > 0 {
		w.upvalues[v.id] = true
	}
}

func (w *scopeWalk) declare(names ...string) {
	top := len(w.funcs) - 1
	for _, n := range names {
		w.ids++
		w.funcs[top] = append(w.funcs[top], localVar{n, w.ids})
	}
}

// mark and release bound a scope in the current function.
func (w *scopeWalk) mark() int { return len(w.funcs[len(w.funcs)-1]) }

func (w *scopeWalk) release(mark int) {
	top := len(w.funcs) - 1
	w.funcs[top] = w.funcs[top][:mark]
}

func (w *scopeWalk) block(stmts []ast.Stmt) {
	mark := w.mark()
	w.stmts(stmts)
	w.release(mark)
}

func (w *scopeWalk) stmts(stmts []ast.Stmt) {
	for i := range stmts {
		if s, ok := stmts[i].(*ast.AssignStmt); ok {
			w.exprs(s.Lhs)
			w.exprs(s.Rhs)
			if w.fix == nil {
				continue
			}
			if r := w.fix(s, w); r != nil {
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
				w.declare(s.Names[0])
				w.exprs(s.Exprs)
				return
			}
		}
		w.exprs(s.Exprs)
		w.declare(s.Names...)
	case *ast.FuncCallStmt:
		w.expr(s.Expr)
	case *ast.DoBlockStmt:
		w.block(s.Stmts)
	case *ast.WhileStmt:
		w.expr(s.Condition)
		w.block(s.Stmts)
	case *ast.RepeatStmt:
		// The condition sees the body's locals.
		mark := w.mark()
		w.stmts(s.Stmts)
		w.expr(s.Condition)
		w.release(mark)
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
	mark := w.mark()
	w.declare(names...)
	w.block(body)
	w.release(mark)
}

// function walks a nested function's body with its own locals: its
// parameters, self for a method, and arg for a vararg function (gopher-lua
// declares it in every function but the main chunk).
func (w *scopeWalk) function(f *ast.FunctionExpr, method bool) {
	w.funcs = append(w.funcs, nil)
	if method {
		w.declare("self")
	}
	w.declare(f.ParList.Names...)
	if f.ParList.HasVargs {
		w.declare("arg")
	}
	w.block(f.Stmts)
	w.funcs = w.funcs[:len(w.funcs)-1]
}

func (w *scopeWalk) exprs(es []ast.Expr) {
	for _, e := range es {
		w.expr(e)
	}
}

func (w *scopeWalk) expr(e ast.Expr) {
	switch x := e.(type) {
	case *ast.IdentExpr:
		w.use(x.Value)
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
	default:
		for _, sub := range operands(e) {
			w.expr(sub)
		}
	}
}

// operands lists the operands of an operator expression.
func operands(e ast.Expr) []ast.Expr {
	switch x := e.(type) {
	case *ast.LogicalOpExpr:
		return []ast.Expr{x.Lhs, x.Rhs}
	case *ast.RelationalOpExpr:
		return []ast.Expr{x.Lhs, x.Rhs}
	case *ast.StringConcatOpExpr:
		return []ast.Expr{x.Lhs, x.Rhs}
	case *ast.ArithmeticOpExpr:
		return []ast.Expr{x.Lhs, x.Rhs}
	case *ast.UnaryMinusOpExpr:
		return []ast.Expr{x.Expr}
	case *ast.UnaryNotOpExpr:
		return []ast.Expr{x.Expr}
	case *ast.UnaryLenOpExpr:
		return []ast.Expr{x.Expr}
	}
	return nil
}
