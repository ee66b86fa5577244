package scripts

import "github.com/yuin/gopher-lua/ast"

// cloneTree copies a parsed syntax tree so that passes may change the copy
// and the original alike: every node and list is new, so the two share
// only strings. It costs a fraction of parsing again (BenchmarkCloneTree),
// which is what it replaces. ok is false should the tree hold a node type
// gopher-lua v1.1.1's parser does not make; the caller then parses again.
func cloneTree(chunk []ast.Stmt) (c []ast.Stmt, ok bool) {
	t := &treeCloner{ok: true}
	c = t.stmts(chunk)
	return c, t.ok
}

type treeCloner struct{ ok bool }

func (t *treeCloner) stmts(ss []ast.Stmt) []ast.Stmt {
	if ss == nil {
		return nil
	}
	out := make([]ast.Stmt, len(ss))
	for i, s := range ss {
		out[i] = t.stmt(s)
	}
	return out
}

func (t *treeCloner) exprs(es []ast.Expr) []ast.Expr {
	if es == nil {
		return nil
	}
	out := make([]ast.Expr, len(es))
	for i, e := range es {
		out[i] = t.expr(e)
	}
	return out
}

func names(ns []string) []string {
	if ns == nil {
		return nil
	}
	return append([]string(nil), ns...)
}

func (t *treeCloner) stmt(s ast.Stmt) ast.Stmt {
	switch x := s.(type) {
	case *ast.AssignStmt:
		c := *x
		c.Lhs, c.Rhs = t.exprs(x.Lhs), t.exprs(x.Rhs)
		return &c
	case *ast.LocalAssignStmt:
		c := *x
		c.Names, c.Exprs = names(x.Names), t.exprs(x.Exprs)
		return &c
	case *ast.FuncCallStmt:
		c := *x
		c.Expr = t.expr(x.Expr)
		return &c
	case *ast.DoBlockStmt:
		c := *x
		c.Stmts = t.stmts(x.Stmts)
		return &c
	case *ast.WhileStmt:
		c := *x
		c.Condition, c.Stmts = t.expr(x.Condition), t.stmts(x.Stmts)
		return &c
	case *ast.RepeatStmt:
		c := *x
		c.Condition, c.Stmts = t.expr(x.Condition), t.stmts(x.Stmts)
		return &c
	case *ast.IfStmt:
		c := *x
		c.Condition, c.Then, c.Else = t.expr(x.Condition), t.stmts(x.Then), t.stmts(x.Else)
		return &c
	case *ast.NumberForStmt:
		c := *x
		c.Init, c.Limit, c.Step, c.Stmts = t.expr(x.Init), t.expr(x.Limit), t.expr(x.Step), t.stmts(x.Stmts)
		return &c
	case *ast.GenericForStmt:
		c := *x
		c.Names, c.Exprs, c.Stmts = names(x.Names), t.exprs(x.Exprs), t.stmts(x.Stmts)
		return &c
	case *ast.FuncDefStmt:
		c := *x
		if x.Name != nil {
			n := *x.Name
			n.Func, n.Receiver = t.expr(x.Name.Func), t.expr(x.Name.Receiver)
			c.Name = &n
		}
		if x.Func != nil {
			c.Func = t.function(x.Func)
		}
		return &c
	case *ast.ReturnStmt:
		c := *x
		c.Exprs = t.exprs(x.Exprs)
		return &c
	case *ast.BreakStmt:
		c := *x
		return &c
	case *ast.LabelStmt:
		c := *x
		return &c
	case *ast.GotoStmt:
		c := *x
		return &c
	case nil:
		return nil
	}
	t.ok = false
	return s
}

func (t *treeCloner) function(f *ast.FunctionExpr) *ast.FunctionExpr {
	c := *f
	if f.ParList != nil {
		p := *f.ParList
		p.Names = names(f.ParList.Names)
		c.ParList = &p
	}
	c.Stmts = t.stmts(f.Stmts)
	return &c
}

func (t *treeCloner) expr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.TrueExpr:
		c := *x
		return &c
	case *ast.FalseExpr:
		c := *x
		return &c
	case *ast.NilExpr:
		c := *x
		return &c
	case *ast.NumberExpr:
		c := *x
		return &c
	case *ast.StringExpr:
		c := *x
		return &c
	case *ast.Comma3Expr:
		c := *x
		return &c
	case *ast.IdentExpr:
		c := *x
		return &c
	case *ast.AttrGetExpr:
		c := *x
		c.Object, c.Key = t.expr(x.Object), t.expr(x.Key)
		return &c
	case *ast.TableExpr:
		c := *x
		if x.Fields != nil {
			c.Fields = make([]*ast.Field, len(x.Fields))
			for i, f := range x.Fields {
				c.Fields[i] = &ast.Field{Key: t.expr(f.Key), Value: t.expr(f.Value)}
			}
		}
		return &c
	case *ast.FuncCallExpr:
		c := *x
		c.Func, c.Receiver, c.Args = t.expr(x.Func), t.expr(x.Receiver), t.exprs(x.Args)
		return &c
	case *ast.FunctionExpr:
		return t.function(x)
	case nil:
		return nil
	}
	return t.operator(e)
}

func (t *treeCloner) operator(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.LogicalOpExpr:
		c := *x
		c.Lhs, c.Rhs = t.expr(x.Lhs), t.expr(x.Rhs)
		return &c
	case *ast.RelationalOpExpr:
		c := *x
		c.Lhs, c.Rhs = t.expr(x.Lhs), t.expr(x.Rhs)
		return &c
	case *ast.StringConcatOpExpr:
		c := *x
		c.Lhs, c.Rhs = t.expr(x.Lhs), t.expr(x.Rhs)
		return &c
	case *ast.ArithmeticOpExpr:
		c := *x
		c.Lhs, c.Rhs = t.expr(x.Lhs), t.expr(x.Rhs)
		return &c
	case *ast.UnaryMinusOpExpr:
		c := *x
		c.Expr = t.expr(x.Expr)
		return &c
	case *ast.UnaryNotOpExpr:
		c := *x
		c.Expr = t.expr(x.Expr)
		return &c
	case *ast.UnaryLenOpExpr:
		c := *x
		c.Expr = t.expr(x.Expr)
		return &c
	}
	t.ok = false
	return e
}
