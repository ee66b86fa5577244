package commands

import (
	"unsafe"

	"github.com/qlessd/qlessd/store"
)

// BigArg is the length from which an argument is in memory of its own
// that nothing writes to again: the server reads such a bulk into a
// buffer made for it alone (as Redis reads a bulk past its
// PROTO_MBULK_BIG_ARG, 32 KB), a script passes a Lua string, and MULTI and
// blocked clients keep what the connection read for good. Shorter
// arguments may point into a connection's input buffer, which the next
// command overwrites.
const BigArg = 32 << 10

// TakeRoom returns the room of argument a, which the store may take over
// (store.Room), when the connection handed one over with the command;
// nil otherwise. Each room is handed out once: the store keeps its buffer
// and writes around the value, so a second taker would overwrite what the
// first wrote.
func (c *Ctx) TakeRoom(a []byte) *store.Room {
	if len(a) == 0 {
		return nil
	}
	for i := range c.Owned {
		r := &c.Owned[i]
		if r.Len == len(a) && r.Buf != nil && &r.Buf[r.Off] == &a[0] {
			taken := *r
			*r = store.Room{}
			return &taken
		}
	}
	return nil
}

// KeepArg returns an argument as a string a command may keep: a long one
// shares its memory (a 500 MB value is not copied again), a short one is
// copied out of the input buffer.
func KeepArg(b []byte) string {
	if len(b) >= BigArg {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string(b)
}
