package commands

import "unsafe"

// BigArg is the length from which an argument is in memory of its own
// that nothing writes to again: the server reads such a bulk into a
// buffer made for it alone (as Redis reads a bulk past its
// PROTO_MBULK_BIG_ARG, 32 KB), a script passes a Lua string, and MULTI and
// blocked clients keep what the connection read for good. Shorter
// arguments may point into a connection's input buffer, which the next
// command overwrites.
const BigArg = 32 << 10

// KeepArg returns an argument as a string a command may keep: a long one
// shares its memory (a 500 MB value is not copied again), a short one is
// copied out of the input buffer.
func KeepArg(b []byte) string {
	if len(b) >= BigArg {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string(b)
}
