package luastruct_test

import (
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

const hex = `local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end `

// Expected replies were recorded from redis-server 7.0.15.
func TestStruct(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{hex + `return hex(struct.pack('>IBHs', 0xdeadbeef, 7, 300, 'end'))`, `"deadbeef07012c656e6400"`},
		{hex + `return hex(struct.pack('!4bi<h', 1, 2, 3))`, `"01000000020000000300"`},
		{`return {struct.unpack('>IBHs', struct.pack('>IBHs', 0xdeadbeef, 7, 300, 'end'))}`, `[:3735928559 :7 :300 "end" :12]`},
		{`return {struct.unpack('bc0', '\3abcd')}`, `["abc" :5]`},
		{`return {struct.size('bhilf d'), struct.size('!bd')}`, `[:27 :16]`},
		{`return {pcall(struct.pack, 'z', 1)}`, `[nil "bad argument #1 to '?' (invalid format option 'z')"]`},
		{`return {pcall(struct.unpack, 'i', 'ab')}`, `[nil "bad argument #2 to '?' (data string too short)"]`},
		{`return {pcall(struct.unpack, 'b', 'ab', 0)}`, `[nil "bad argument #3 to '?' (offset must be 1 or greater)"]`},
		{`return {pcall(struct.size, 's')}`, `[nil "bad argument #1 to '?' (option 's' has no fixed size)"]`},
		{`return {pcall(function() return struct.pack('b') end)}`, `[nil "user_script:1: bad argument #2 to 'pack' (number expected, got nil)"]`},
	} {
		if got := difftest.Eval(c.script); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.script, got, c.want)
		}
	}
}
