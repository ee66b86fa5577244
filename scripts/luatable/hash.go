// Package luatable reproduces the order in which Lua 5.1.5 (the Lua of
// Redis 7.0) visits the string keys of a table's hash part, so that code
// running on gopher-lua, whose tables iterate in insertion order, can
// insert keys in an order that makes pairs and cjson.encode match Redis.
package luatable

import "math/bits"

// Hash is the string hash of Redis's Lua: h starts as the length and
// folds in every byte from the last to the first. Stock Lua 5.1 hashes
// only every (len/32+1)-th byte, so long strings that differ only in the
// skipped bytes would collide; Redis changed that step to 1 (against
// hash-flooding), and its table order follows this hash.
func Hash(s string) uint32 {
	h := uint32(len(s))
	for i := len(s) - 1; i >= 0; i-- {
		h ^= h<<5 + h>>2 + uint32(s[i])
	}
	return h
}

// ConstructorHint is the hash size a table constructor with n record
// fields asks for: the parser stores n in OP_NEWTABLE as a "floating
// point byte" (luaO_int2fb), which rounds it up, and the VM decodes it.
func ConstructorHint(n int) int {
	if n <= 0 {
		return 0
	}
	return fb2int(int2fb(uint(n)))
}

// int2fb encodes x as eeeeexxx, meaning (1xxx) * 2^(eeeee-1), rounding up.
func int2fb(x uint) int {
	e := 0
	for x >= 16 {
		x = (x + 1) >> 1
		e++
	}
	if x < 8 {
		return int(x)
	}
	return (e+1)<<3 | int(x-8)
}

func fb2int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return (x&7 + 8) << (e - 1)
}

// maxLogSize is Lua 5.1's MAXBITS with 32-bit ints: a larger hash part
// is a "table overflow".
const maxLogSize = 26

// ceilLog2 is the log2 of the node vector Lua allocates for size > 0.
func ceilLog2(size int) int {
	return bits.Len(uint(size - 1))
}
