package luastruct_test

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

const helpers = `
local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end
local function num(v) if v ~= v then return 'nan' elseif v == 1/0 then return 'inf' elseif v == -1/0 then return '-inf' end return string.format('%.17g', v) end
local function dumpall(...) local r = {} for i = 1, select('#', ...) do local v = select(i, ...) r[i] = type(v) == 'number' and num(v) or ('s:' .. hex(tostring(v))) end return table.concat(r, ' ') end
local function try(f, ...) local r = {pcall(f, ...)} if not r[1] then return 'ERR ' .. tostring(r[2]) end table.remove(r, 1) return dumpall(unpack(r)) end
`

func TestDifferentialStruct(t *testing.T) {
	var cs []difftest.Case
	add := func(s string) { cs = append(cs, difftest.Case{Script: helpers + s}) }
	packs := []string{
		"'b', 1", "'b', -1", "'b', 200", "'B', 255", "'B', -1", "'h', -2", "'H', 65535", "'>h', 258", "'<h', 258",
		"'i', 1", "'i', -1", "'I', 2^32-1", "'>i', 1", "'i2', 513", "'i3', -2", "'>i3', 70000", "'i8', -1", "'I8', 2^53",
		"'i16', -1", "'>I16', 5", "'l', -3", "'L', 2^63", "'L', 2^64", "'L', 2^65", "'l', -2^63", "'l', -2^64", "'T', 7",
		"'f', 1.5", "'>f', 1.5", "'f', 1/3", "'f', 1e40", "'d', 1/3", "'>d', -0.5", "'d', 1/0",
		"'c3', 'abcdef'", "'c0', 'hello'", "'c', 'xyz'", "'s', 'hi'", "'s', ''", "'x'", "'bxb', 1, 2",
		"'!bd', 1, 2", "'!4bd', 1, 2", "'!2bi', 1, 2", "'!bhbibl', 1, 2, 3, 4, 5, 6", "'! b i', 1, 2", "'!8bT', 1, 2",
		"'>!4 b i <i', 1, 2, 3", "'b', 1.7", "'b', -1.7", "'b', '12'", "'i', 2.5", "'i', 3.5", "'I', -2.5",
		"'c5', 'ab'", "'b'", "'b', 'x'", "'z', 1", "'!3b', 1", "'!0b', 1", "'i33', 1", "'i99999999999', 1", "'c2s', 'ab', 'cd'",
		"'d', '1e3'", "'bb', 1", "'', 1", "'f', 'x'", "'s', {}", "'b\\0b', 1, 2", "'i0', 5",
	}
	for _, p := range packs {
		add(fmt.Sprintf("local r = {pcall(struct.pack, %s)} if not r[1] then return 'ERR ' .. r[2] end return {hex(r[2]), try(struct.size, (select(1, %s)))}", p, p))
		add(fmt.Sprintf("local ok, e = pcall(function() return struct.pack(%s) end) return ok and 'ok' or e", p))
	}
	unpacks := []string{
		"'b', '\\255'", "'B', '\\255'", "'h', '\\1\\2'", "'>h', '\\255\\254'", "'<H', '\\255\\254'", "'i', '\\1\\0\\0\\128'",
		"'I', '\\1\\0\\0\\128'", "'i3', '\\255\\255\\255'", "'I3', '\\255\\255\\255'", "'l', '\\255\\255\\255\\255\\255\\255\\255\\255'",
		"'L', '\\255\\255\\255\\255\\255\\255\\255\\255'", "'i16', string.rep('\\255', 16)", "'I10', string.rep('\\1', 10)",
		"'f', '\\0\\0\\192\\63'", "'>f', '\\63\\192\\0\\0'", "'d', '\\0\\0\\0\\0\\0\\0\\248\\63'", "'c2', 'abc'", "'c0', 'abc'",
		"'bc0', '\\2abc'", "'Bc0', '\\5abc'", "'s', 'ab\\0cd'", "'ss', 'ab\\0cd\\0'", "'s', 'abc'", "'x b', 'ab'", "'!bd', '\\1' .. string.rep('\\0', 15)",
		"'b', ''", "'i', 'abc'", "'b', 'abc', 2", "'b', 'abc', 3", "'b', 'abc', 4", "'b', 'abc', 0", "'b', 'abc', -1", "'', 'abc', -5",
		"'', 'abc', 10", "'<', 'abc', 10", "'z', 'a'", "'b', 'a', 'x'", "'b'", "'bb', '\\1\\2', 1.9", "'!4bi', '\\1\\0\\0\\0\\2\\0\\0\\0'",
		"'hc0', '\\2\\0ab'", "'dc0', string.rep('\\0', 8) .. 'x'", "'bxc0', '\\1\\0z'",
	}
	for _, u := range unpacks {
		add(fmt.Sprintf("return try(struct.unpack, %s)", u))
		add(fmt.Sprintf("local ok, e = pcall(function() return struct.unpack(%s) end) return ok and 'ok' or e", u))
	}
	for _, s := range []string{"''", "'b'", "'bhilf d'", "'!bd'", "'!4bd'", "'c10'", "'c0'", "'s'", "'z'", "'>i3<i5'", "'!'", "'!5'", "'x'", "'T'", "'?'", "nil"} {
		add(fmt.Sprintf("return try(struct.size, %s)", s))
	}
	add("local ok, e = pcall(function() return struct.size('s') end) return e")
	add("local p = struct.pack('>IBHs', 0xdeadbeef, 7, 300, 'end') return {hex(p), dumpall(struct.unpack('>IBHs', p))}")
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("struct: %d/%d cases match redis-server", n, len(cs))
}
