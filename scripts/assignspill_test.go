package scripts

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// The contexts put "x = E" last in a function with locals il and ilf; ln
// and lf are upvalues in the second.
var lostFalsyContexts = []struct {
	src    string
	nested bool
}{
	{"local il, ilf = 1, false; local x; x = E", false},
	{"local ln, lf = nil, false; local function g(...) local il, ilf = 1, false; local x; x = E end", true},
}

var lostFalsyLeaves = []string{
	"il", "ilf", "ln", "lf", "gl", "f()", "(f())", "t.k", "t[il]", "...", "o:m()",
	"nil", "false", "true", "1", "'s'", "il == 1", "not il", "-il", "il .. 'a'", "#t", "{}", "function() end",
}

func genLostFalsyExpr(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.Intn(5) == 0 {
		return lostFalsyLeaves[rng.Intn(len(lostFalsyLeaves))]
	}
	a, b := genLostFalsyExpr(rng, depth-1), genLostFalsyExpr(rng, depth-1)
	switch rng.Intn(7) {
	case 0:
		return "not (" + a + ")"
	case 1:
		return "(" + a + ") == (" + b + ")"
	case 2, 3:
		return "(" + a + ") or (" + b + ")"
	}
	return "(" + a + ") and (" + b + ")"
}

// skipsTarget reports whether the function's code tests a register other
// than x's and on that jumps to its closing RETURN, past the store: the
// miscompilation, read off gopher-lua's instructions.
func skipsTarget(p *lua.FunctionProto) bool {
	const op, a = 26, 18
	x := -1 // locals take registers in order; none goes out of scope here
	for i, l := range p.DbgLocals {
		if l.Name == "x" {
			x = i
		}
	}
	end := len(p.Code) - 1
	for pc := 0; pc+1 < len(p.Code); pc++ {
		in, next := p.Code[pc], p.Code[pc+1]
		if int(in>>op) != lua.OP_TEST || int(in>>a)&0xff == x || int(next>>op) != lua.OP_JMP {
			continue
		}
		sbx := int(next&0x3ffff) - 0x3ffff>>1
		if pc+2+sbx == end {
			return true
		}
	}
	return false
}

func compileTest(t *testing.T, src string, nested, spill bool) (*lua.FunctionProto, bool) {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), "t")
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	flagged := false
	rewriteAssigns(chunk, func(s *ast.AssignStmt, sc localScope) ast.Stmt {
		if !losesFalsy(s, sc) {
			return nil
		}
		flagged = true
		if spill {
			return spillAssign(s, sc.isLocal)
		}
		return nil
	})
	p, err := lua.Compile(chunk, "t")
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if nested {
		p = p.FunctionPrototypes[0]
	}
	return p, flagged
}

// The rewrite's test must pick out exactly the assignments the compiler
// gets wrong, and its output must not have the fault.
func TestLuaLostFalsyMatchesCompiler(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	faulty := 0
	for i := 0; i < 4000; i++ {
		c := lostFalsyContexts[i%len(lostFalsyContexts)]
		src := strings.Replace(c.src, "E", genLostFalsyExpr(rng, 1+rng.Intn(4)), 1)
		p, flagged := compileTest(t, src, c.nested, false)
		bad := skipsTarget(p)
		if bad != flagged {
			t.Fatalf("%s: compiler skips the store: %v, rewrite flags it: %v\n%s", src, bad, flagged, p)
		}
		if bad {
			faulty++
			if p, _ := compileTest(t, src, c.nested, true); skipsTarget(p) {
				t.Fatalf("%s: still skips the store after the rewrite\n%s", src, p)
			}
		}
	}
	if faulty < 500 {
		t.Fatalf("only %d of the generated assignments were miscompiled", faulty)
	}
}

// Assignments gopher-lua gets right stay as they are; the differential
// tests (tests/lua_assign_test.go) show the spilled ones come out right.
func TestLuaAssignOrderSpillsOnlyWhatShows(t *testing.T) {
	cases := []struct {
		src   string
		spill bool
	}{
		{"local a, b, c; a, b = c, 1", false},
		{"local a, b; a, b = b, a", true},
		{"local a, b, t; a, b = t.x, t.y", false},
		{"local a, b, t; local function f() return a end; a, b = t.x, t.y", true},
		{"local a, b, t; local function f() return a end; b, a = t.x, t.y", false},
		{"local a, b; a, b = f()", false},
		{"local a, b; local function g() return a end; a, b = f(), 1", false},
		{"local a, b; local function g() return a end; a, b = 1, f()", true},
		{"local a; a, a = 1, 2", true},
		{"u, v = 1, 2", false},
		{"local t, a; t.x, t.y = a, 1", false},
		{"local t, a; u, t.y = 1, a", true},
		{"local t, a; t.y, u = a, 1", false},
		{"local t, u; t.x, t = 1, u", true},
		{"local t, i; i, t[i] = i + 1, 20", false},
		{"local t, i; local function g() i = 2 end; t[i] = f()", true},
		{"local t, i; t[i] = f()", false},
		{"local x, y; x = (y or 0) and x", true},
		{"local x, y; x = (y or 0) and 1", false},
		{"local x, y; x = y and 1", false},
		{"local x; x = f() and 1", true},
		{"local x; local function g() x = (f() or 0) and g() end", false},
		{"local x; x = (f() or 0) and x", true},
		{"local x; local function g() return x end; x = (f() or 0) and g()", true},
	}
	for _, c := range cases {
		chunk, err := parse.Parse(strings.NewReader(c.src), "t")
		if err != nil {
			t.Fatal(err)
		}
		spilled := false
		rewriteAssigns(chunk, func(s *ast.AssignStmt, sc localScope) ast.Stmt {
			spilled = spilled || fixAssignOrder(s, sc) != nil
			return nil
		})
		if spilled != c.spill {
			t.Errorf("%s: spilled %v, want %v", c.src, spilled, c.spill)
		}
	}
}

// A function near the register limit may have no room for the rewrite's
// locals; it still compiles whenever it did without the rewrite.
func TestLuaAssignSpillAtRegisterLimit(t *testing.T) {
	for _, stmt := range []string{"a, b = b, a", "a = tonumber('x') and 1", "a, b, c = c, a and b, f()"} {
		for n := 190; n <= 200; n++ {
			names := make([]string, n)
			for i := range names {
				names[i] = "v" + strconv.Itoa(i)
			}
			src := "local a, b, c\nlocal " + strings.Join(names, ", ") + "\n" + stmt + "\nreturn a, b"
			_, plainErr := compileChunk(mustParse(t, src), chunkName, 0)
			_, err := compile(src, chunkName)
			if (err == nil) != (plainErr == nil) {
				t.Errorf("%s with %d more locals: compiles: %v, without the rewrite: %v", stmt, n, err, plainErr)
			}
		}
	}
}

func mustParse(t *testing.T, src string) []ast.Stmt {
	t.Helper()
	chunk, err := parseChunk(src, chunkName)
	if err != nil {
		t.Fatal(err)
	}
	return chunk
}
