package scripts

import (
	"reflect"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua v1.1.1 is used as it is: the project forks and vendors no
// dependency, so where its compiler or VM differs from Lua 5.1 as Redis
// 7.0 runs it, the difference is mended from outside, by rewriting the
// syntax tree before gopher-lua compiles it or the prototype after. This
// file lists every such change in the order a compilation makes it, with
// the gap it covers and the test that fails without it (docs/lua.md, "How
// we patch gopher-lua", has the figures). TestPassesAreGuarded checks the
// tests exist.

// passFlag selects the passes of one compilation.
type passFlag uint8

const (
	// onParse passes run on every parsed chunk (parseChunk).
	onParse passFlag = 1 << iota
	// withArgTables: vararg functions' arg tables built by a Go helper.
	withArgTables
	// withHoist: sandbox globals read once into locals (run-once chunks).
	withHoist
	// asHead: the chunk becomes its cached-head factory.
	asHead
	// withSpill: assignments gopher-lua miscompiles are spilled first.
	withSpill
	// onProto passes fix the compiled prototype.
	onProto
)

// pass is one change to gopher-lua's input or output.
type pass struct {
	name   string
	flag   passFlag
	reason string // the gopher-lua gap, and what Lua 5.1 / Redis does
	guard  string // "scripts.TestX" or "tests.TestX": fails without the pass
	// tree rewrites a syntax tree (nil from asHead: no head to cache).
	tree func(chunk []ast.Stmt) []ast.Stmt
	// visit is a tree pass that rewrites nodes one by one: made afresh for
	// each chunk, it returns what walkAST calls on every node (children
	// first) and what to do with the chunk after (nil: nothing). Passes
	// next to each other share one walk, which costs about what parsing
	// does (BenchmarkWalkAST).
	visit func() (func(n any), func(chunk []ast.Stmt) []ast.Stmt)
	// proto fixes the prototype compiled from chunk.
	proto func(chunk []ast.Stmt, name string, p *lua.FunctionProto)
}

// passes is run in this order by applyTree and applyProto.
var passes = []pass{
	{name: "numerals", flag: onParse, visit: numeralsPass, guard: "tests.TestScriptingCorpus",
		reason: "gopher-lua's compiler makes a numeral past a double's range (1e400) NaN; Lua's strtod makes it inf (numlit.go)"},
	{name: "concat", flag: onParse, visit: concatPass, guard: "tests.TestScriptingCorpus",
		reason: "gopher-lua's VM formats numbers in .. with Go's %v (1.2345675e+06); Lua uses %.14g; the chain also counts against lua-max-memory (concat.go)"},
	{name: "argtable", flag: withArgTables, tree: rewriteArgTables, guard: "scripts.TestArgTable",
		reason: "gopher-lua builds a vararg function's arg table with a 32-slot hash on every call (2 KB); a Go helper builds Lua's {..., n=} with room for n (argtable.go)"},
	{name: "hoist", flag: withHoist, tree: hoistGlobals, guard: "scripts.TestHoistKeepsMeaning",
		reason: "a global read costs three lookups through the sandbox proxy; a run-once chunk reads the fixed sandbox globals once into locals (hoist.go)"},
	{name: "prefix", flag: asHead, tree: splitPrefix, guard: "scripts.TestPrefixPerCallMeaning",
		reason: "module-style scripts rebuild ~150 closures per call; the constant head runs once per interpreter and the rest per call (prefix.go)"},
	{name: "assignorder", flag: withSpill, tree: spillAssigns, guard: "tests.TestLuaMultipleAssign",
		reason: "gopher-lua stores some assignments to locals early or not at all (a, b = b, a; x = f() and 1); spilled through temporaries they compute what Lua does (assignorder.go, assignspill.go)"},
	{name: "localscopes", flag: onProto, proto: fixLocalScopes, guard: "scripts.TestLocalScopesAfterBlocks",
		reason: "gopher-lua writes a local's scope end into the wrong DbgLocals entry; error messages name locals as Lua does only with the ends found again, by a second compile with block markers (scopes.go)"},
	{name: "tablehints", flag: onProto, proto: func(_ []ast.Stmt, _ string, p *lua.FunctionProto) { hintEmptyTables(p) }, guard: "scripts.TestEmptyTableHint",
		reason: "gopher-lua gives {} no hash part and the first string key a 32-slot one (2 KB); a size hint of 1 makes it one 8-slot group (tablehint.go)"},
}

// repairs are the changes made outside compilation, to what gopher-lua
// reports; listed here so that one place names every patch.
var repairs = []pass{
	{name: "parse error text", guard: "tests.TestScriptingCorpus",
		reason: "gopher-lua's parser words errors its own way (syntax error near EOF); reworded as Lua 5.1's (unexpected symbol near '<eof>') with user_script:<line>: (compile.go parseErrorText)"},
	{name: "runtime error text", guard: "tests.TestScriptingErrorNames",
		reason: "gopher-lua's runtime errors read 'attempt to index a non-table object(nil) with key'; reworded as Lua 5.1's, naming the operand from the bytecode at the failing instruction (messages.go, vmerror.go, varname.go)"},
	{name: "frame mirror", guard: "scripts.TestFrameMirrorLayout",
		reason: "the failing instruction's pc sits in gopher-lua's unexported callFrame; read through an unsafe mirror of v1.1.1's layout, checked against GetInfo on every read (luaframe.go)"},
}

// applyTree runs the tree passes selected by set on chunk, in order; nil
// when a pass declines (asHead: no head worth caching) or chunk is empty.
func applyTree(chunk []ast.Stmt, set passFlag) []ast.Stmt {
	for i := 0; i < len(passes); {
		if passes[i].flag&set == 0 || passes[i].proto != nil {
			i++
			continue
		}
		if passes[i].visit == nil {
			chunk = passes[i].tree(chunk)
			i++
		} else {
			chunk, i = applyVisits(chunk, set, i)
		}
		if chunk == nil {
			return nil
		}
	}
	return chunk
}

// applyVisits runs the visit passes of set from passes[i] on, up to the
// next pass of set that is not one, in one walk; it returns the chunk and
// the index of that pass.
func applyVisits(chunk []ast.Stmt, set passFlag, i int) ([]ast.Stmt, int) {
	var visits []func(any)
	var finishes []func([]ast.Stmt) []ast.Stmt
	for ; i < len(passes); i++ {
		p := passes[i]
		if p.flag&set == 0 {
			continue
		}
		if p.visit == nil {
			break
		}
		v, f := p.visit()
		visits = append(visits, v)
		if f != nil {
			finishes = append(finishes, f)
		}
	}
	walkAST(reflect.ValueOf(chunk), func(n any) {
		for _, v := range visits {
			v(n)
		}
	})
	for _, f := range finishes {
		chunk = f(chunk)
	}
	return chunk, i
}

// applyProto runs the prototype passes on proto, compiled from chunk.
func applyProto(chunk []ast.Stmt, name string, proto *lua.FunctionProto) {
	for _, p := range passes {
		if p.proto != nil {
			p.proto(chunk, name, proto)
		}
	}
}

// spillAssigns is the assignorder pass over a whole chunk.
func spillAssigns(chunk []ast.Stmt) []ast.Stmt {
	rewriteAssigns(chunk, fixAssignOrder)
	return chunk
}
