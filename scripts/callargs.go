package scripts

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/qlessd/qlessd/scripts/internal/clua"
)

// stringBytes shows a Lua string to a command as its argument without
// copying it. Commands never modify their arguments, and keep only long
// ones (commands.KeepArg), which a Lua string may be: it never changes.
// The slice's capacity is its length, so an append copies instead of
// writing into the string.
func stringBytes(s string) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// appendArgNumber appends a number as redis.call passes it (%.17g); whole
// numbers well inside float64's exact range take the short way, which
// prints the same digits.
func appendArgNumber(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 && (f != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	// fmtArgNumber's digits, appended in place.
	return clua.AppendG(b, f, 17)
}
