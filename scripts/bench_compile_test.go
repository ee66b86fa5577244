package scripts

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// qlessLuaOrder is qless/script.go's concatenation order (the qless
// package imports this one, so its tests cannot call qless.Script).
var qlessLuaOrder = []string{"base.lua", "rate.lua", "throttle.lua", "beyond.lua", "queue.lua", "job.lua", "recurring.lua", "worker.lua", "api.lua"}

// qlessScript is the script qless.Script builds: qless.lua's calling
// preamble around the library, about 2,000 lines.
func qlessScript(tb testing.TB) string {
	tb.Helper()
	files, err := filepath.Glob("../qless/lua/*.lua")
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := append([]string(nil), qlessLuaOrder...)
	sort.Strings(names)
	sort.Strings(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		tb.Fatalf("qless/lua holds %v; update qlessLuaOrder from qless/script.go", names)
	}
	var b strings.Builder
	b.WriteString("if #KEYS > 0 then error('No Keys should be provided') end\nlocal dispatch = (function(...)\n")
	for _, name := range qlessLuaOrder {
		src, err := os.ReadFile("../qless/lua/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		b.WriteString("-- " + name + "\n")
		b.Write(src)
	}
	b.WriteString("end)()\nreturn dispatch(unpack(ARGV))\n")
	return b.String()
}

// moduleScript is a script written as a module, as stock qless.lua
// builds are: a table of 150 functions defined in the head, which is
// cached (prefix.go), and one call.
func moduleScript() string {
	var b strings.Builder
	b.WriteString("local M = {ns = 'ql:'}\nlocal redis, tonumber = redis, tonumber\n")
	for i := 1; i <= 150; i++ {
		n := strconv.Itoa(i)
		b.WriteString("function M.f" + n + "(key, ...)\n  local v = redis.call('get', M.ns .. key)\n" +
			"  if not v then return arg.n end\n  local a, b = tonumber(v), " + n + "\n  a, b = b, a\n  return a + b\nend\n")
	}
	b.WriteString("return M.f1(KEYS[1])\n")
	return b.String()
}

// smallScript is a typical EVAL body.
const smallScript = "local v = redis.call('get', KEYS[1]) if not v then v = 0 end " +
	"local n = tonumber(v) + tonumber(ARGV[1]) redis.call('set', KEYS[1], n) return 'n=' .. n"

// BenchmarkCompileScript is what EVAL and SCRIPT LOAD pay once per new
// script: the per-call prototype and the cached-head factory.
func BenchmarkCompileScript(b *testing.B) {
	for _, c := range []struct{ name, src string }{{"qless", qlessScript(b)}, {"module", moduleScript()}, {"small", smallScript}} {
		b.Run(c.name, func(b *testing.B) {
			body := []byte(c.src)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := compileScript("", body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompileLibrary is RegisterLibrary's compile (qless.Library's
// path): the library prototype, hoisted, and libraryKeepsLibs.
func BenchmarkCompileLibrary(b *testing.B) {
	src := qlessScript(b)
	e := NewEngine(Options{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := e.RegisterLibrary("q", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileStages runs the per-call compile one pass further each
// time, in passes.go's order, so the cost of each is the difference to the
// line before (hoist and prefix run only for run-once chunks and heads).
func BenchmarkCompileStages(b *testing.B) {
	var stages []string
	for _, p := range passes {
		if p.flag&(withHoist|asHead) == 0 {
			stages = append(stages, p.name)
		}
	}
	for _, c := range []struct{ name, src string }{{"qless", qlessScript(b)}, {"small", smallScript}} {
		for n := -2; n < len(stages); n++ {
			label := "parse"
			switch {
			case n == -1:
				label = "compile-only"
			case n >= 0:
				label = "to-" + stages[n]
			}
			b.Run(c.name+"/"+label, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					compileStages(b, c.src, n, stages)
				}
			})
		}
	}
}

// compileStages parses src, and unless n is -2 compiles it with the
// passes named by stages[:n+1].
func compileStages(b *testing.B, src string, n int, stages []string) {
	chunk, err := parse.Parse(strings.NewReader(src), chunkName)
	if err != nil {
		b.Fatal(err)
	}
	if n == -2 {
		return
	}
	on := map[string]bool{}
	for _, s := range stages[:n+1] {
		on[s] = true
	}
	for _, p := range passes {
		if !on[p.name] {
			continue
		}
		switch {
		case p.tree != nil:
			chunk = p.tree(chunk)
		case p.visit != nil:
			v, finish := p.visit()
			walkAST(reflect.ValueOf(chunk), v)
			if finish != nil {
				chunk = finish(chunk)
			}
		}
	}
	proto, err := lua.Compile(chunk, chunkName)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range passes {
		if on[p.name] && p.proto != nil {
			p.proto(chunk, chunkName, proto)
		}
	}
}

// BenchmarkCloneTree is what the cached head's own tree costs, against
// BenchmarkCompileStages' parse.
func BenchmarkCloneTree(b *testing.B) {
	chunk, err := parseChunk(qlessScript(b), chunkName)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := cloneTree(chunk); !ok {
			b.Fatal("unknown node")
		}
	}
}

// BenchmarkWalkAST is one walk of qless's tree, as most tree passes make.
func BenchmarkWalkAST(b *testing.B) {
	chunk, err := parseChunk(qlessScript(b), chunkName)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		walkAST(reflect.ValueOf(chunk), func(any) {})
	}
}
