package qless

import (
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// allowedGlobals are the only globals the scripts may read: Redis's script
// API, cjson and the Lua 5.1 standard library.
var allowedGlobals = map[string]bool{
	"redis": true, "cjson": true, "math": true, "string": true, "table": true,
	"tonumber": true, "tostring": true, "ipairs": true, "pairs": true,
	"unpack": true, "error": true, "select": true, "xpcall": true, "pcall": true, "type": true, "KEYS": true,
	"ARGV": true,
}

// globalsOf compiles src and returns the globals it reads and writes. A read
// of anything else is a typo that would only fail at run time.
func globalsOf(t *testing.T, src string) (reads, writes []string) {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), "qless")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := lua.Compile(chunk, "qless")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for _, inst := range p.Code {
			op := int(inst >> 26)
			if op != lua.OP_GETGLOBAL && op != lua.OP_SETGLOBAL {
				continue
			}
			name := p.Constants[int(inst&0x3ffff)].String()
			if op == lua.OP_SETGLOBAL {
				writes = append(writes, name)
			} else if !seen[name] {
				seen[name] = true
				reads = append(reads, name)
			}
		}
		for _, sub := range p.FunctionPrototypes {
			walk(sub)
		}
	}
	walk(proto)
	sort.Strings(reads)
	return reads, writes
}

func TestScriptsUseNoUnknownGlobals(t *testing.T) {
	for name, src := range map[string]string{"Library": Library(), "Script": Script()} {
		reads, writes := globalsOf(t, src)
		if len(writes) > 0 {
			t.Errorf("%s assigns globals: %v", name, writes)
		}
		for _, g := range reads {
			if !allowedGlobals[g] {
				t.Errorf("%s reads unknown global %q", name, g)
			}
		}
	}
}

func TestScriptWrapsLibrary(t *testing.T) {
	if !strings.Contains(Script(), Library()) {
		t.Fatal("Script does not embed Library")
	}
	if len(SHA()) != 40 {
		t.Fatalf("SHA %q", SHA())
	}
}
