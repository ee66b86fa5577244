package scripts

import (
	"regexp"
	"strings"
)

// gopher-lua words some runtime errors differently from Lua 5.1. These
// rewrite them to Lua 5.1's wording where the message carries enough to do
// so. Lua's variable names ("local 'a'") and the type of a value called
// need the erroring frame, which only the error handler sees (vmerror.go);
// here they stay out.
var (
	reArith  = regexp.MustCompile(`cannot perform (\w+) operation between (\w+) and (\w+)$`)
	reIndex  = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '.*'$`)
	reBadArg = regexp.MustCompile(`bad argument #(\d+) to ([\w.]+) \(`)
	reCmp    = regexp.MustCompile(`attempt to compare (\w+) with (\w+)$`)
	callText = "attempt to call a non-function object"
	lenText  = "__len undefined"
	unmText  = "__unm undefined"
)

// forTexts are gopher-lua's numeric for errors with Lua 5.1's texts.
var forTexts = []struct{ ours, lua string }{
	{"for statement init must be a number", "'for' initial value must be a number"},
	{"for statement limit must be a number", "'for' limit must be a number"},
	{"for statement step must be a number", "'for' step must be a number"},
}

func luaMessage(msg string) string {
	// gopher-lua leaves the function name unquoted: "bad argument #1 to floor (".
	msg = reBadArg.ReplaceAllString(msg, "bad argument #$1 to '$2' (")
	if m := reArith.FindStringSubmatchIndex(msg); m != nil {
		op, a, b := msg[m[2]:m[3]], msg[m[4]:m[5]], msg[m[6]:m[7]]
		// Lua blames the first operand unless it is a number; a string
		// operand got here only because it did not convert.
		bad := b
		if a != "number" {
			bad = a
		}
		verb := "perform arithmetic on"
		if op == "concat" {
			verb = "concatenate"
			if a == "string" || a == "number" {
				bad = b
			}
		}
		return msg[:m[0]] + "attempt to " + verb + " a " + bad + " value"
	}
	if m := reIndex.FindStringSubmatchIndex(msg); m != nil {
		return msg[:m[0]] + "attempt to index a " + msg[m[2]:m[3]] + " value"
	}
	if m := reCmp.FindStringSubmatchIndex(msg); m != nil && msg[m[2]:m[3]] == msg[m[4]:m[5]] {
		return msg[:m[0]] + "attempt to compare two " + msg[m[2]:m[3]] + " values"
	}
	if strings.HasSuffix(msg, lenText) {
		return strings.TrimSuffix(msg, lenText) + "attempt to get length of a nil value"
	}
	for _, f := range forTexts {
		if strings.HasSuffix(msg, f.ours) {
			return strings.TrimSuffix(msg, f.ours) + f.lua
		}
	}
	if strings.HasSuffix(msg, callText) {
		return strings.TrimSuffix(msg, callText) + "attempt to call a nil value"
	}
	return msg
}
