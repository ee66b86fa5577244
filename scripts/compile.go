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
// The arg rewrite (argtable.go) adds a local to some functions, and the
// assignment rewrite (assignspill.go) some registers to a multiple
// assignment; a function already at the limit then does not compile, and
// is compiled without the one, then without both, as are error messages
// made.
func compile(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, err
	}
	if proto, err := compileChunk(rewriteArgTables(chunk), name, true); err == nil {
		return proto, nil
	}
	if chunk, err = parseChunk(src, name); err != nil {
		return nil, err
	}
	if proto, err := compileChunk(chunk, name, true); err == nil {
		return proto, nil
	}
	if chunk, err = parseChunk(src, name); err != nil {
		return nil, err
	}
	return compileChunk(chunk, name, false)
}

func parseChunk(src, name string) ([]ast.Stmt, error) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, errors.New(parseErrorText(err, src, name))
	}
	return rewriteChunk(chunk), nil
}

// compileChunk compiles a chunk, with the assignment rewrite if spill.
func compileChunk(chunk []ast.Stmt, name string, spill bool) (*lua.FunctionProto, error) {
	if spill {
		rewriteAssigns(chunk, fixAssignOrder)
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, errors.New(name + ":" + strconv.Itoa(ce.Line) + ": " + ce.Message)
		}
		return nil, errors.New(name + ": " + err.Error())
	}
	fixLocalScopes(chunk, name, proto)
	hintEmptyTables(proto)
	return proto, nil
}

// compileFactory compiles the factory form of a chunk (prefix.go), or
// returns nil when the chunk has none. It parses the source again rather
// than share syntax tree nodes between two compilations.
func compileFactory(src, name string) *lua.FunctionProto {
	for _, hoist := range []bool{true, false} {
		chunk, err := parseChunk(src, name)
		if err != nil {
			return nil
		}
		if hoist {
			chunk = hoistGlobals(rewriteArgTables(chunk))
		}
		factory := splitPrefix(chunk)
		if factory == nil {
			continue
		}
		if proto, err := compileChunk(factory, name, true); err == nil {
			return proto
		}
	}
	return nil
}

// compileOnce compiles a chunk that runs once per state (a library) with
// its sandbox globals read up front (hoist.go); should that not compile
// (too many locals), it compiles the source as it is.
func compileOnce(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, err
	}
	if proto, err := compileChunk(hoistGlobals(rewriteArgTables(chunk)), name, true); err == nil {
		return proto, nil
	}
	return compile(src, name)
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
