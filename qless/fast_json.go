package qless

import (
	"bytes"
	"encoding/json"

	"github.com/qlessd/qlessd/scripts/luacjson"
)

// normalizeJSON is cjson.encode(cjson.decode(s)), false when unsure.
func normalizeJSON(s string) ([]byte, bool) { return nil, false }

// decodesTruthy reports that cjson.decode(s) surely succeeds with a true
// value (not false): strict JSON cjson reads the same way. Whitespace
// around the value, \u escapes (cjson refuses lone surrogates) and deep
// nesting are left to the Lua.
func decodesTruthy(s []byte) bool {
	if len(s) == 0 || isJSONSpace(s[0]) || isJSONSpace(s[len(s)-1]) {
		return false
	}
	if bytes.Contains(s, []byte(`\u`)) || nesting(s) > 500 {
		return false
	}
	return json.Valid(s) && string(s) != "false"
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nesting is an upper bound of s's depth: brackets inside strings count too.
func nesting(s []byte) int {
	n := 0
	for _, c := range s {
		if c == '[' || c == '{' {
			n++
		}
	}
	return n
}

// jsonString is cjson's text of a string.
func jsonString(s string) string {
	return string(luacjson.AppendString(nil, s))
}
