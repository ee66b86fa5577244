package luacmsgpack_test

import (
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

const hex = `local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end `

// Expected replies were recorded from redis-server 7.0.15.
func TestCmsgpack(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{hex + `return {hex(cmsgpack.pack(1, -1, 200, -200, 70000, 2^40, -2^40))}`, `["01ffccc8d1ff38ce00011170cf0000010000000000d3ffffff0000000000"]`},
		{hex + `return {hex(cmsgpack.pack(1.5, 0.1, 1/0, 'abc', true, false, nil))}`, `["ca3fc00000cb3fb999999999999aca7f800000a3616263c3c2c0"]`},
		{hex + `return {hex(cmsgpack.pack({})), hex(cmsgpack.pack({1,2})), hex(cmsgpack.pack({a=1})), hex(cmsgpack.pack({1,nil,3}))}`,
			`["90" "920102" "81a16101" "8201010303"]`},
		{`local a, b, c = cmsgpack.unpack(cmsgpack.pack(1, 'x', {2})) return {a, b, c[1]}`, `[:1 "x" :2]`},
		{`return {cmsgpack.unpack_one(cmsgpack.pack(7, 8))}`, `[:1 :7]`},
		{`return {cmsgpack.unpack_one(cmsgpack.pack(7, 8), 1)}`, `[:-1 :8]`},
		{`return {cmsgpack.unpack_limit(cmsgpack.pack(7, 8, 9), 2)}`, `[:2 :7 :8]`},
		{`return {pcall(cmsgpack.unpack, '\193')}`, `[nil "Bad data format in input."]`},
		{`return {pcall(cmsgpack.unpack, '\146\1')}`, `[nil "Missing bytes in input."]`},
		{`return {pcall(cmsgpack.pack)}`, `[nil "bad argument #0 to '?' (MessagePack pack needs input.)"]`},
		{`return {pcall(cmsgpack.unpack_one, '\1', -1)}`, `[nil "Invalid request to unpack with offset of -1 and limit of 1."]`},
		{`return {pcall(cmsgpack.unpack, '\129\192\1')}`, `[nil "table index is nil"]`},
	} {
		if got := difftest.Eval(c.script); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.script, got, c.want)
		}
	}
}
