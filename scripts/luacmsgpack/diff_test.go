package luacmsgpack_test

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// helpers defines hex(s) and dump(v): renderings that print the same in
// Redis's Lua and in gopher-lua (sorted keys, C-style numbers).
const helpers = `
local function hex(s) return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end)) end
local function num(v) if v ~= v then return 'nan' elseif v == 1/0 then return 'inf' elseif v == -1/0 then return '-inf' end return string.format('%.17g', v) end
local function dump(v)
  local t = type(v)
  if t == 'number' then return num(v) end
  if t == 'string' then return 's' .. #v .. ':' .. hex(string.sub(v, 1, 40)) end
  if t ~= 'table' then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys+1] = k end
  table.sort(keys, function(a, b) return type(a) .. dump(a) < type(b) .. dump(b) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts+1] = dump(k) .. '=' .. dump(v[k]) end
  return '{' .. table.concat(parts, ',') .. '}'
end
local function dumpall(...) local r = {} for i = 1, select('#', ...) do r[i] = dump((select(i, ...))) end return table.concat(r, ' ') end
`

func TestDifferentialCmsgpack(t *testing.T) {
	var cs []difftest.Case
	add := func(s string) { cs = append(cs, difftest.Case{Script: helpers + s}) }
	// Deterministic encodings: compare the bytes, and the round trip.
	for _, v := range []string{"0", "1", "127", "128", "255", "256", "65535", "65536", "2^32-1", "2^32", "2^53", "2^63", "-2^63",
		"2^64", "-1", "-32", "-33", "-128", "-129", "-32768", "-32769", "-2^31", "-2^31-1", "-2^53", "1.5", "-1.5", "0.1", "1/3",
		"1e300", "-1e-300", "1/0", "-1/0", "0/0", "3.4028234663852886e38", "1e-45", "2^-149", "0.5", "(function() local z = 0 return -z end)()",
		"''", "'a'", "string.rep('x', 31)", "string.rep('x', 32)", "string.rep('x', 255)", "string.rep('x', 256)",
		"string.rep('y', 65535)", "string.rep('y', 65536)", "'\\0\\1\\255'", "true", "false", "nil", "{}", "{1,2,3}", "{{}}",
		"{1,{2,{3}}}", "{nil,2}", "{1,nil,3}", "{[2]=2}", "{[1]=1,[2]=2,[4]=4}", "{a=1}", "{[1.5]=1}", "{[-1]=1}", "{[0]=1}",
		"{[2^31]=1}", "{[true]=1}", "{tostring}", "{a={b={}}}", "{[{}]=1}",
	} {
		add(fmt.Sprintf("local p = cmsgpack.pack(%s) return {hex(string.sub(p, 1, 40)), #p, string.sub(dumpall(cmsgpack.unpack(p)), 1, 200)}", v))
	}
	add("local t = {} for i = 1, 15 do t[i] = i end local u = {} for i = 1, 16 do u[i] = i end local w = {} for i = 1, 70000 do w[i] = i % 7 end " +
		"return {hex(cmsgpack.pack(t)), hex(cmsgpack.pack(u)), hex(string.sub(cmsgpack.pack(w), 1, 10)), #cmsgpack.pack(w), #cmsgpack.unpack(cmsgpack.pack(w))}")
	add("local t = {} for i = 1, 16 do t['k' .. i] = i end local p = cmsgpack.pack(t) return {hex(string.sub(p, 1, 3)), #p, dump(cmsgpack.unpack(p))}")
	add("local t = {} for i = 1, 70000 do t['k' .. i] = 1 end local p = cmsgpack.pack(t) return {hex(string.sub(p, 1, 5)), #p}")
	// Nesting: tables deeper than 16 pack as nil, so cycles terminate.
	for _, n := range []int{15, 16, 17, 20} {
		add(fmt.Sprintf("local t = {} local c = t for i = 2, %d do c[1] = {} c = c[1] end return hex(cmsgpack.pack(t))", n))
	}
	add("local t = {} t[1] = t return hex(cmsgpack.pack(t))")
	add("local t = {a = 1} t.self = t local p = cmsgpack.pack(t) return #p")
	// Several values, and stream unpacking.
	add("local p = cmsgpack.pack(1, 'two', {3}, nil, true) return {hex(p), dumpall(cmsgpack.unpack(p))}")
	add("local p = cmsgpack.pack(1, 'two', {3}) return {dumpall(cmsgpack.unpack_one(p)), dumpall(cmsgpack.unpack_one(p, 1)), dumpall(cmsgpack.unpack_one(p, 5)), dumpall(cmsgpack.unpack_one(p, 6))}")
	add("local p = cmsgpack.pack(1, 2, 3, 4) return {dumpall(cmsgpack.unpack_limit(p, 2)), dumpall(cmsgpack.unpack_limit(p, 2, 2)), dumpall(cmsgpack.unpack_limit(p, 0)), dumpall(cmsgpack.unpack_limit(p, 10, 3)), dumpall(cmsgpack.unpack_limit(p, 0, 1))}")
	add("return {dumpall(cmsgpack.unpack('')), dumpall(cmsgpack.unpack_one('')), dumpall(cmsgpack.unpack_limit('', 3))}")
	add("return dumpall(cmsgpack.unpack_one('\\1\\2', 2))")
	// Raw decoding of every type byte class, including ones 0.4.0 rejects.
	for _, h := range []string{"c0", "c2", "c3", "cc80", "cd1234", "ce12345678", "cfffffffffffffffff", "cf7fffffffffffffff",
		"d080", "d1ff00", "d280000000", "d3ffffffffffffffff", "d38000000000000000", "ca3fc00000", "cb3ff8000000000000",
		"cb7ff8000000000001", "cbfff8000000000000", "ca7fc00000", "d903616263", "da0003616263", "db00000003616263", "a3616263",
		"93010203", "dc0002c0c3", "dd00000001a0", "81a16101", "de0001a16101", "df00000001a16101", "820102c003", "8101c0",
		"81c001", "81cb7ff8000000000000c3", "82a161a162a161a163", "e0", "ff", "7f", "c1", "c4016", "c401aa", "c7", "d4", "d9",
		"d905", "a5ab", "93", "9301", "cd12", "cb", "dc00", "dd0000", "de", "8201", "91c0", "92c0c0", "9301c002",
	} {
		add(fmt.Sprintf("local s = string.gsub(%q, '..', function(x) return string.char(tonumber(x, 16)) end) "+
			"local r = {pcall(cmsgpack.unpack, s)} local ok = table.remove(r, 1) if not ok then return 'ERR ' .. r[1] end "+
			"local out = {} for i = 1, #r do out[i] = dump(r[i]) end return {select('#', cmsgpack.unpack(s)), table.concat(out, ' ')}", h))
	}
	// Errors.
	for _, bad := range []string{"cmsgpack.pack()", "cmsgpack.unpack()", "cmsgpack.unpack(nil)", "cmsgpack.unpack({})",
		"cmsgpack.unpack(5)", "cmsgpack.unpack_one('\\1', -1)", "cmsgpack.unpack_one('\\1', 5)", "cmsgpack.unpack_one('\\1', 'x')",
		"cmsgpack.unpack_limit('\\1')", "cmsgpack.unpack_limit('\\1', -2)", "cmsgpack.unpack_limit('\\1\\2', 1, 3)",
		"cmsgpack.unpack_limit('\\1', 'a')", "cmsgpack.unpack_one({})", "cmsgpack.unpack('\\193')", "cmsgpack.unpack('\\146\\1')"} {
		add(fmt.Sprintf("local ok, e = pcall(function() return %s end) return {tostring(ok), tostring(e)}", bad))
	}
	// Lua 5.1's C stack limit (8000 slots) while unpacking.
	for _, n := range []int{7000, 7998, 7999, 8000} {
		add(fmt.Sprintf("local p = string.rep(cmsgpack.pack(1), %d) return {pcall(function() return select('#', cmsgpack.unpack(p)) end)}", n))
		add(fmt.Sprintf("local p = string.rep(cmsgpack.pack(1), %d) local r = {pcall(cmsgpack.unpack, p)} return {tostring(r[1]), #r}", n))
	}
	for _, n := range []int{3990, 3998, 3999, 4000, 5000} {
		add(fmt.Sprintf("local p = string.rep('\\145', %d) .. '\\1' local r = {pcall(cmsgpack.unpack, p)} return {tostring(r[1]), type(r[2]) == 'string' and r[2] or 'table'}", n))
		add(fmt.Sprintf("local p = string.rep('\\129\\1', %d) .. '\\1' local r = {pcall(cmsgpack.unpack, p)} return {tostring(r[1]), type(r[2]) == 'string' and r[2] or 'table'}", n))
	}
	for _, n := range []int{4000, 4001} {
		add(fmt.Sprintf("local t = {} for i = 1, %d do t[i] = i %% 200 end local r = {pcall(cmsgpack.pack, unpack(t))} return {tostring(r[1]), r[1] and #r[2] or r[2]}", n))
	}
	add("return {pcall(cmsgpack.pack)}")
	add("return {pcall(cmsgpack.unpack, '\\193')}")
	add("return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}")
	n := difftest.Run(t, difftest.StartRedis(t), cs)
	t.Logf("cmsgpack: %d/%d cases match redis-server", n, len(cs))
}
