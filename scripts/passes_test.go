package scripts

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// TestPassesAreGuarded checks that every pass and repair names a test
// that exists, in this package or in tests/.
func TestPassesAreGuarded(t *testing.T) {
	dirs := map[string]string{"scripts": ".", "tests": "../tests"}
	defined := map[string]bool{}
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	for pkg, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no tests in %s: %v", dir, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				defined[pkg+"."+m[1]] = true
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range append(append([]pass(nil), passes...), repairs...) {
		if seen[p.name] {
			t.Errorf("pass %q listed twice", p.name)
		}
		seen[p.name] = true
		if p.reason == "" {
			t.Errorf("pass %q gives no reason", p.name)
		}
		if !defined[p.guard] {
			t.Errorf("pass %q: guarding test %q not found", p.name, p.guard)
		}
	}
}

// TestEmptyTableHint checks the tablehints pass: {} gets a hash size hint
// and the table behaves as any.
func TestEmptyTableHint(t *testing.T) {
	p, err := compile("local t = {} t.a = 1 t[1] = 2 return t.a + #t", chunkName)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Code {
		if i := instr(c); i.op() == lua.OP_NEWTABLE && i.c() != emptyTableHashHint {
			t.Fatalf("NEWTABLE has hash hint %d", i.c())
		}
	}
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal(numStrGlobal, L.NewFunction(numStr))
	L.Push(L.NewFunctionFromProto(p))
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatal(err)
	}
	if got := L.Get(-1); got != lua.LNumber(2) {
		t.Fatalf("got %v", got)
	}
}

// passCorpus are chunks whose compilation takes every path: a module head
// with arg tables and spilled assignments, qless's script, plain EVAL
// bodies, a chunk with goto (no head).
func passCorpus(t *testing.T) []string {
	return []string{
		qlessScript(t),
		moduleScript(),
		smallScript,
		moduleHead + "local function f(...) local a, b = 1, 2 a, b = b, a return arg.n + a end\nM.f = f\nreturn M.get('a') .. f(1, 2)\n",
		moduleHead + "local x = 1 x = M.get('z') and 1 return x\n",
		"local a, b = 1, 2 a, b = b, a return {a, b, 1e400 .. ''}",
		"::top:: local x = 1 return x",
		"",
	}
}

// TestCompileOnceMatchesReparsing checks that compileScriptSource, which
// parses once, compiles what parsing anew for each prototype compiled:
// the same per-call code and the same cached-head factory.
func TestCompileOnceMatchesReparsing(t *testing.T) {
	heads := 0
	for _, src := range passCorpus(t) {
		proto, factory, err := compileScriptSource(src, chunkName)
		if err != nil {
			t.Fatal(err)
		}
		want, err := compile(src, chunkName)
		if err != nil {
			t.Fatal(err)
		}
		short := src[:min(len(src), 40)]
		if !reflect.DeepEqual(proto, want) {
			t.Errorf("%q: per-call prototype differs", short)
		}
		if wantF := factoryByReparsing(src); !reflect.DeepEqual(factory, wantF) {
			t.Errorf("%q: factory differs (got nil: %v, want nil: %v)", short, factory == nil, wantF == nil)
		}
		if factory != nil {
			heads++
		}
	}
	if heads < 3 {
		t.Errorf("%d chunks of the corpus have a cached head, want 3", heads)
	}
}

// factoryByReparsing is the cached-head factory as compiled from a fresh
// parse per attempt: hoisted, then not.
func factoryByReparsing(src string) *lua.FunctionProto {
	for _, set := range []passFlag{withArgTables | withHoist | asHead, asHead} {
		chunk, err := parseChunk(src, chunkName)
		if err != nil {
			return nil
		}
		if chunk = applyTree(chunk, set); chunk == nil {
			continue
		}
		if p, err := compileChunk(chunk, chunkName, withSpill); err == nil {
			return p
		}
	}
	return nil
}

// TestCloneTreeIsDeep checks that a cloned tree compiles to the same code
// and shares no node with the original.
func TestCloneTreeIsDeep(t *testing.T) {
	for _, src := range passCorpus(t) {
		chunk, err := parseChunk(src, chunkName)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := cloneTree(chunk)
		if !ok {
			t.Fatalf("%q: clone found a node type it does not know", src[:min(len(src), 40)])
		}
		nodes := map[any]bool{}
		walkAST(reflect.ValueOf(chunk), func(n any) { nodes[n] = true })
		walkAST(reflect.ValueOf(c), func(n any) {
			if nodes[n] {
				t.Fatalf("clone shares %T", n)
			}
		})
		a, errA := lua.Compile(chunk, chunkName)
		b, errB := lua.Compile(c, chunkName)
		if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: clone compiles differently (%v, %v)", src[:min(len(src), 40)], errA, errB)
		}
	}
}

// TestParsesPerCompile checks that a script is parsed once whether or not
// it has a cached head, and a library once.
func TestParsesPerCompile(t *testing.T) {
	n := 0
	parseSource = func(r io.Reader, name string) ([]ast.Stmt, error) {
		n++
		return parse.Parse(r, name)
	}
	defer func() { parseSource = parse.Parse }()
	for _, src := range passCorpus(t) {
		n = 0
		if _, _, err := compileScriptSource(src, chunkName); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%q: %d parses", src[:min(len(src), 40)], n)
		}
	}
	n = 0
	if _, _, err := compileLibrary(strings.TrimSuffix(moduleHead, "\n")+"\nreturn M.get\n", chunkName); err != nil || n != 1 {
		t.Errorf("library: %d parses (%v)", n, err)
	}
}
