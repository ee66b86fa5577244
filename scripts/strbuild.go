package scripts

import (
	"math"
	"unsafe"

	"github.com/qlessd/qlessd/scripts/internal/clua"
	"github.com/qlessd/qlessd/scripts/internal/limits"
	lua "github.com/yuin/gopher-lua"
)

// repChunk bounds the bytes string.rep copies between polls of the kill
// switch: a few milliseconds of copying.
const repChunk = 16 << 20

// strRep is Lua 5.1's string.rep: the count is a C int (luaL_checkint), so
// 2^40 counts as 0 as on Redis; the result counts against the script's
// memory ceiling before it is made, and is built in chunks with SCRIPT KILL
// polled between them.
func strRep(L *lua.LState) int {
	s := clua.CheckString(L, 1)
	n := int(int32(clua.CheckInteger(L, 2)))
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if n > math.MaxInt/len(s) {
		n = math.MaxInt / len(s)
	}
	total := len(s) * n
	limits.Grow(L, total)
	buf := make([]byte, total)
	done := copy(buf, s)
	// The filled prefix is always whole copies of s, so it can be copied
	// on; chunks are whole copies too.
	chunk := max(repChunk/len(s), 1) * len(s)
	for done < total {
		limits.Poll(L)
		done += copy(buf[done:], buf[:min(done, chunk)])
	}
	L.Push(lua.LString(unsafe.String(unsafe.SliceData(buf), len(buf))))
	return 1
}
