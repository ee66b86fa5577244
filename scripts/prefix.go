package scripts

import (
	"reflect"

	"github.com/yuin/gopher-lua/ast"
)

// Scripts written as modules (qless-core's qless.lua is 2,000 lines) spend
// much of every call rebuilding their definitions: some 150 closures put
// into a few local tables before the one operation runs. Those statements
// compute nothing from the call, so each pooled state runs them once and
// keeps the result, and each call runs only the rest of the chunk.
//
// splitPrefix finds such statements and returns a factory chunk: the cached
// statements in their order, then "return function() <the rest> end". The
// split is made only when no call can tell it happened:
//   - a cached statement declares locals, or sets string-keyed fields of a
//     table a cached local holds, from constants, function expressions,
//     string-keyed table constructors, cached locals and their fields and
//     concatenations of these; nothing in it calls a function or reads a
//     global, so running it early or once has no effect of its own;
//   - a cached local is declared once and never assigned, anywhere; one
//     that holds a sandbox global (hoist.go) also counts as constant;
//   - a statement that stays per call but precedes a cached one declares no
//     local and names no cached local, so it cannot see what the cached
//     statements after it set up, nor they anything it does;
//   - what the rest of the chunk changes in the cached tables is undone
//     after each call (see cachedChunk), so every call starts from the
//     state the statements left.
//
// The per-call part is not a vararg function, as the chunk is not one to
// Lua code (gopher-lua gives nested vararg functions a local arg), so a
// chunk that uses ... is left whole: the factory fails to compile.

// hiddenGlobals are the locals the compiler rewrites declare, with the
// unspellable global names of their Go helpers.
var hiddenGlobals = map[string]string{numStrLocal: numStrGlobal, argTableLocal: argTableGlobal}

// minCachedStmts is the least number of statements worth a factory.
const minCachedStmts = 8

func splitPrefix(chunk []ast.Stmt) []ast.Stmt {
	declared := map[string]int{}
	for _, st := range chunk {
		switch st.(type) {
		case *ast.LabelStmt, *ast.GotoStmt:
			// A jump back would run statements again that ran once.
			return nil
		}
	}
	for _, st := range chunk {
		if la, ok := st.(*ast.LocalAssignStmt); ok {
			for _, n := range la.Names {
				declared[n]++
			}
		}
	}
	assigned := map[string]bool{}
	walkAST(reflect.ValueOf(chunk), func(v any) {
		switch x := v.(type) {
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
	// The cached set depends on where caching stops, and where it must stop
	// depends on the set: shrink until both agree.
	stop := len(chunk)
	for {
		p := prefixSplit{declared: declared, assigned: assigned, names: map[string]bool{}, tables: map[string]bool{}, fixed: map[string]bool{}}
		cached, perCall, closeAt := p.split(chunk, stop)
		if closeAt >= 0 {
			stop = closeAt
			continue
		}
		if len(cached) < minCachedStmts {
			return nil
		}
		return factoryChunk(cached, perCall)
	}
}

type prefixSplit struct {
	declared map[string]int
	assigned map[string]bool
	names    map[string]bool // cached locals
	tables   map[string]bool // cached locals holding a table built here
	// cached locals that hold a sandbox global (hoist.go): the same value
	// as the global at any time, so statements may name them freely.
	fixed map[string]bool
}

// split classifies the statements before stop; closeAt is the index of a
// per-call statement that names a cached local, or -1.
func (p *prefixSplit) split(chunk []ast.Stmt, stop int) (cached, perCall []ast.Stmt, closeAt int) {
	var early []int // per-call statements that precede cached ones
	for i, st := range chunk {
		if i < stop && p.cacheable(st) {
			cached = append(cached, st)
			continue
		}
		if i < stop && declaresLocal(st) {
			stop = i
		}
		if i < stop {
			early = append(early, i)
		}
		perCall = append(perCall, st)
	}
	watched := map[string]bool{}
	for n := range p.names {
		if !p.fixed[n] {
			watched[n] = true
		}
	}
	for _, i := range early {
		if mentionsAny(chunk[i], watched) {
			return nil, nil, i
		}
	}
	return cached, perCall, -1
}

func declaresLocal(st ast.Stmt) bool {
	_, ok := st.(*ast.LocalAssignStmt)
	return ok
}

func (p *prefixSplit) cacheable(st ast.Stmt) bool {
	switch x := st.(type) {
	case *ast.LocalAssignStmt:
		if len(x.Names) != len(x.Exprs) {
			return false
		}
		hoist := isHoist(x)
		for i, n := range x.Names {
			if p.declared[n] != 1 || p.assigned[n] {
				return false
			}
			if hoist {
				continue
			}
			if global, ok := hiddenGlobals[n]; ok {
				if id, ok := x.Exprs[i].(*ast.IdentExpr); !ok || id.Value != global {
					return false
				}
			} else if !p.pure(x.Exprs[i]) {
				return false
			}
		}
		for i, n := range x.Names {
			p.names[n] = true
			if _, hidden := hiddenGlobals[n]; hoist || hidden {
				p.fixed[n] = true
			}
			if _, ok := x.Exprs[i].(*ast.TableExpr); ok {
				p.tables[n] = true
			}
		}
		return true
	case *ast.FuncDefStmt:
		if x.Name.Receiver != nil {
			return p.field(x.Name.Receiver)
		}
		a, ok := x.Name.Func.(*ast.AttrGetExpr)
		return ok && p.field(a)
	case *ast.AssignStmt:
		if len(x.Lhs) != len(x.Rhs) {
			return false
		}
		for i, l := range x.Lhs {
			a, ok := l.(*ast.AttrGetExpr)
			if !ok || !p.field(a) || !p.pure(x.Rhs[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// field reports whether e is a string-keyed path into a table a cached
// local holds (t, t.a, t.a.b): reading it cannot call anything, since no
// table built here has a metatable before the factory returns.
func (p *prefixSplit) field(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.IdentExpr:
		return p.tables[x.Value]
	case *ast.AttrGetExpr:
		_, ok := x.Key.(*ast.StringExpr)
		return ok && p.field(x.Object)
	}
	return false
}

func (p *prefixSplit) pure(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr, *ast.FunctionExpr:
		return true
	case *ast.IdentExpr:
		return p.names[x.Value]
	case *ast.AttrGetExpr:
		return p.field(x)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if _, ok := f.Key.(*ast.StringExpr); !ok || !p.pure(f.Value) {
				return false
			}
		}
		return true
	case *ast.StringConcatOpExpr:
		return p.pure(x.Lhs) && p.pure(x.Rhs)
	case *ast.FuncCallExpr:
		// The concatenation rewrite's number formatting (concat.go),
		// with or without the argument that starts a chain.
		id, ok := x.Func.(*ast.IdentExpr)
		if len(x.Args) == 2 {
			if _, start := x.Args[1].(*ast.TrueExpr); !start {
				return false
			}
		}
		return ok && id.Value == numStrLocal && p.names[numStrLocal] && x.Receiver == nil &&
			(len(x.Args) == 1 || len(x.Args) == 2) && p.pure(x.Args[0])
	}
	return false
}

// mentionsAny reports whether st names any of names anywhere, scopes
// ignored (which only errs toward not caching).
func mentionsAny(st ast.Stmt, names map[string]bool) bool {
	found := false
	walkAST(reflect.ValueOf(st), func(v any) {
		if id, ok := v.(*ast.IdentExpr); ok && names[id.Value] {
			found = true
		}
	})
	return found
}

func factoryChunk(cached, perCall []ast.Stmt) []ast.Stmt {
	fn := &ast.FunctionExpr{ParList: &ast.ParList{Names: []string{}}, Stmts: perCall}
	ret := &ast.ReturnStmt{Exprs: []ast.Expr{fn}}
	if len(perCall) > 0 {
		first, last := perCall[0], perCall[len(perCall)-1]
		fn.SetLine(first.Line())
		fn.SetLastLine(last.LastLine())
		ret.SetLine(last.LastLine())
		ret.SetLastLine(last.LastLine())
	}
	out := make([]ast.Stmt, 0, len(cached)+1)
	out = append(out, cached...)
	return append(out, ret)
}

// walkAST calls visit with a pointer to every syntax tree node under v,
// inner ones first, so visit may rewrite a node whose children it has
// already seen; callers pick the node types they want.
func walkAST(v reflect.Value, visit func(any)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkAST(v.Elem(), visit)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkAST(v.Index(i), visit)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				walkAST(v.Field(i), visit)
			}
		}
		if v.CanAddr() {
			visit(v.Addr().Interface())
		}
	}
}
