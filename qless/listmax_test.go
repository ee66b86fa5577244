package qless

import (
	"strconv"
	"strings"
	"testing"
)

// The Go fast paths hand a list past listMax to the Lua, which refuses it:
// both must name the same number.
func TestListMaxMatchesLua(t *testing.T) {
	const decl = "local LIST_MAX = "
	lib := Library()
	i := strings.Index(lib, decl)
	if i < 0 {
		t.Fatalf("library declares no %q", decl)
	}
	rest := lib[i+len(decl):]
	n, err := strconv.Atoi(rest[:strings.IndexByte(rest, '\n')])
	if err != nil || n != listMax {
		t.Fatalf("Lua LIST_MAX %q, Go listMax %d", rest[:strings.IndexByte(rest, '\n')], listMax)
	}
}
