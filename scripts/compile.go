package scripts

import (
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// chunkName is what Redis 7.0 names EVAL bodies, so positions read
// "user_script:12:" and qless clients' error regex finds them.
const chunkName = "user_script"

// compile turns source into a function prototype, with a compile error
// worded as Lua 5.1 words it where gopher-lua's parser allows.
func compile(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, err
	}
	return compilePerCall(applyTree(chunk, withArgTables), src, name)
}

// compilePerCall compiles chunk, parsed from src with the argtable pass
// made. That pass adds a local to some functions, and the assignorder pass
// some registers to a multiple assignment; a function already at the limit
// then does not compile, and src is compiled without the one, then without
// both, as are error messages made. Those rare attempts parse src again:
// the first has changed the tree.
func compilePerCall(chunk []ast.Stmt, src, name string) (*lua.FunctionProto, error) {
	if proto, err := compileChunk(chunk, name, withSpill); err == nil {
		return proto, nil
	}
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, err
	}
	if proto, err := compileChunk(chunk, name, withSpill); err == nil {
		return proto, nil
	}
	if chunk, err = parseChunk(src, name); err != nil {
		return nil, err
	}
	return compileChunk(chunk, name, 0)
}

// compileScriptSource compiles an EVAL body: the per-call prototype, and
// the factory of its cached head (prefix.go), nil when it has none. One
// parse serves both: whether there is a head is decided on the tree before
// any pass changes it, and the head then gets a copy of its own.
func compileScriptSource(src, name string) (proto, factory *lua.FunctionProto, err error) {
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, nil, err
	}
	plainHead := applyTree(chunk, asHead) != nil
	chunk = applyTree(chunk, withArgTables)
	var head []ast.Stmt
	if applyTree(chunk, withHoist|asHead) != nil {
		if c, ok := cloneTree(chunk); ok {
			head = applyTree(c, withHoist|asHead)
		} else if c, err := parseChunk(src, name); err == nil {
			head = applyTree(c, withArgTables|withHoist|asHead)
		}
	}
	if proto, err = compilePerCall(chunk, src, name); err != nil {
		return nil, nil, err
	}
	return proto, compileHead(head, plainHead, src, name), nil
}

// compileHead compiles the factory of a cached head, with the sandbox
// globals hoisted; should that not compile (too many locals), the head
// without them, from a new parse, when the plain chunk has one.
func compileHead(head []ast.Stmt, plainHead bool, src, name string) *lua.FunctionProto {
	if head != nil {
		if proto, err := compileChunk(head, name, withSpill); err == nil {
			return proto
		}
	}
	if !plainHead {
		return nil
	}
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil
	}
	if head = applyTree(chunk, asHead); head == nil {
		return nil
	}
	proto, err := compileChunk(head, name, withSpill)
	if err != nil {
		return nil
	}
	return proto
}

// compileLibrary compiles a chunk that runs once per state (a library)
// with its sandbox globals read up front (hoist.go); should that not
// compile (too many locals), it compiles the source as EVAL does.
// keepsLibs is libraryKeepsLibs of the parsed chunk.
func compileLibrary(src, name string) (proto *lua.FunctionProto, keepsLibs bool, err error) {
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, false, err
	}
	keepsLibs = libraryKeepsLibs(chunk)
	if proto, err := compileChunk(applyTree(chunk, withArgTables|withHoist), name, withSpill); err == nil {
		return proto, keepsLibs, nil
	}
	proto, err = compile(src, name)
	return proto, keepsLibs, err
}

// parseSource is gopher-lua's parser; TestParsesPerCompile counts calls.
var parseSource = parse.Parse

// parseChunk parses src and runs the onParse passes.
func parseChunk(src, name string) ([]ast.Stmt, error) {
	chunk, err := parseSource(strings.NewReader(src), name)
	if err != nil {
		return nil, errors.New(parseErrorText(err, src, name))
	}
	return applyTree(chunk, onParse), nil
}

// compileChunk compiles a parsed chunk with the tree passes of set (the
// others made already) and then the prototype passes.
func compileChunk(chunk []ast.Stmt, name string, set passFlag) (*lua.FunctionProto, error) {
	chunk = applyTree(chunk, set)
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, errors.New(name + ":" + strconv.Itoa(ce.Line) + ": " + ce.Message)
		}
		return nil, errors.New(name + ": " + err.Error())
	}
	applyProto(chunk, name, proto)
	return proto, nil
}

func parseErrorText(err error, src, name string) string {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return name + ": " + strings.TrimSpace(err.Error())
	}
	line := pe.Pos.Line
	tok := pe.Token
	if line <= 0 {
		line = strings.Count(src, "\n") + 1
		tok = "<eof>"
	}
	msg := pe.Message
	switch msg {
	case "syntax error":
		msg = "unexpected symbol"
	case "unterminated string":
		msg = "unfinished string"
	case "unterminated multiline string":
		msg = "unfinished long string"
	}
	if tok == "" || tok == "EOF" {
		tok = "<eof>"
	}
	return name + ":" + strconv.Itoa(line) + ": " + msg + " near '" + tok + "'"
}
