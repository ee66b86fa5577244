package luacjson_test

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/scripts/internal/difftest"
)

// pc wraps an expression so its error text (or result) comes back as a string.
func pc(expr string) string {
	return fmt.Sprintf("local ok, r = pcall(function() return %s end) return {tostring(ok), r}", expr)
}

// numFmt defines fmt(v), printing numbers the same in both interpreters
// (gopher-lua's %g spells infinities differently from C).
const numFmt = "local function fmt(v) if v ~= v then return 'nan' elseif v == 1/0 then return 'inf' " +
	"elseif v == -1/0 then return '-inf' else return string.format('%%.17g', v) end end "

func encodeCases() []difftest.Case {
	var cs []difftest.Case
	add := func(script string, json bool) { cs = append(cs, difftest.Case{Script: script, JSON: json}) }
	for _, v := range []string{"0", "1", "-1", "1e300", "-1e300", "1/3", "2/3", "2^53", "2^53+1", "1e-7",
		"123456789012345", "1234567890123456", "12345678901234567", "1e14", "1e15", "1e16", "0.1", "-1.5",
		"100", "2^63", "-2^63", "2^31", "-2^31", "5e-324", "1.7976931348623157e308", "1e-5", "0.0001",
		"123.456", "3.14159265358979", "1e21", "99999999999999.5", "0.000001234", "(function() local z = 0 return -z end)()",
		"'hello'", "''", "true", "false", "nil", "cjson.null", "{}", "{{}}", "{{},{}}",
		"{1,2,{a=1}}", "{1,'a',true,false}", "{cjson.null}", "{nil,2}", "{1,nil,3}", "{[1]=1,[2]=2,[4]=4}",
		"{'a/b', 'c\\\\d', 'e\"f'}", "'\\0'", "'é∑😀'", "{[1.5]=1}", "{[-1]=1}", "{[0]=1}", "{[1]='x',[1.5]='y'}",
		"{[2^31]=1}", "{[1e300]=1}", "{[3]=3,[2]=2,[1]=1}", "{1,2,x=3}", "{a={b={c={}}}}",
		"{[1/3]=1}", "{['1']=1,[2]=2}",
	} {
		add("return cjson.encode("+v+")", true)
	}
	// Every byte value, escaped or passed through.
	add("local t = {} for i = 0, 255 do t[#t+1] = string.char(i) end return cjson.encode(table.concat(t))", false)
	// Holes at every position up to and beyond the "safe" index.
	for i := 1; i <= 13; i++ {
		add(fmt.Sprintf("local t = {} t[%d] = 'x' return cjson.encode(t)", i), false)
		add(pc(fmt.Sprintf("cjson.encode({[%d] = 1, [%d] = 2})", i, i*3)), false)
	}
	for _, n := range []int{5, 10, 11, 20, 21, 22, 30} {
		add(pc(fmt.Sprintf("cjson.encode({[1]=1,[2]=2,[3]=3,[4]=4,[5]=5,[6]=6,[7]=7,[8]=8,[9]=9,[10]=10,[%d]=1})", n)), true)
	}
	for _, set := range []string{"true", "false, 0", "nil, 3", "nil, nil, 0", "true, 1, 1", "'on'", "'off'", "nil, 1, 20"} {
		add(fmt.Sprintf("local r = {cjson.encode_sparse_array(%s)} local ok, e = pcall(cjson.encode, {[1]=1,[15]=2,[3]=3}) "+
			"return {tostring(r[1]), tostring(r[2]), tostring(r[3]), tostring(ok), e}", set), true)
	}
	// Errors, raised from a Lua caller (with position) and from pcall directly.
	for _, v := range []string{"1/0", "-1/0", "0/0", "{1/0}", "{a=-1/0}", "{[true]=1}", "{[{}]=1}",
		"tostring", "coroutine.create(function() end)", "{f=tostring}", "{[1/0]=1}", "{[-1/0]=1}"} {
		add(pc("cjson.encode("+v+")"), false)
		add(fmt.Sprintf("return {pcall(cjson.encode, %s)}", v), false)
	}
	add("return {pcall(cjson.encode)}", false)
	add("return {pcall(cjson.encode, 1, 2)}", false)
	add(pc("cjson.encode()"), false)
	add(pc("cjson.encode(1, 2)"), false)
	// Nesting limits.
	for _, n := range []int{999, 1000, 1001} {
		add(fmt.Sprintf("local t = {} local c = t for i = 2, %d do c[1] = {} c = c[1] end return {pcall(cjson.encode, t)}", n), false)
		add(fmt.Sprintf("local t = {} local c = t for i = 2, %d do c.k = {} c = c.k end local ok, e = pcall(cjson.encode, t) return {tostring(ok), #e}", n), false)
	}
	for _, d := range []string{"1", "3", "0", "-1", "'5'", "'x'", "{}", "2^31", "2^32+3", "3.7", "nil", "1, 2"} {
		add(fmt.Sprintf("local r = {pcall(cjson.encode_max_depth, %s)} local ok, e = pcall(cjson.encode, {{{1}}}) return {tostring(r[1]), tostring(r[2]), tostring(ok), e}", d), false)
	}
	// Number precision and invalid-number settings.
	for _, p := range []string{"1", "2", "5", "10", "13", "14", "15", "0", "'abc'", "'7'", "6.9", "true"} {
		add(fmt.Sprintf("local ok, r = pcall(cjson.encode_number_precision, %s) local ok2, e = pcall(cjson.encode, {1/3, 2/3, 1e300, 123456.789, 0.5, 100, 1e-10, 2^53}) return {tostring(ok), tostring(r), e}", p), false)
	}
	for _, m := range []string{"'on'", "'off'", "'null'", "true", "false", "'bogus'", "1", "nil"} {
		add(fmt.Sprintf("local ok, r = pcall(cjson.encode_invalid_numbers, %s) local ok2, e = pcall(cjson.encode, {1/0, -1/0, 0/0, 1}) "+
			"local ok3, e3 = pcall(cjson.encode, {[1/0]=1}) return {tostring(ok), tostring(r), e, e3}", m), false)
	}
	for _, m := range []string{"true", "false", "'on'", "'off'", "'x'", "nil", "1, 2"} {
		add(fmt.Sprintf("local ok, r = pcall(cjson.encode_keep_buffer, %s) return {tostring(ok), tostring(r), cjson.encode({1,2})}", m), false)
	}
	add("return {cjson._NAME, cjson._VERSION, type(cjson.null), tostring(cjson.null == cjson.new().null)}", false)
	add("local c = cjson.new() c.encode_number_precision(3) return {c.encode(1/3), cjson.encode(1/3), tostring(c.null == cjson.null)}", false)
	return cs
}

func decodeCases() []difftest.Case {
	var cs []difftest.Case
	rt := "local ok, r = pcall(cjson.decode, ARGV[1]) if not ok then return 'ERR ' .. r end local ok2, e = pcall(cjson.encode, r) return {type(r), tostring(ok2), e}"
	for _, in := range []string{`[1,2,3]`, `{"a":1}`, `{"a":{"b":[1,{"c":null}]},"d":"e"}`, ` [ 1 , 2 ] `, "\t\r\n[1]\n",
		`"\u00e9"`, `"\ud83d\ude00"`, `"\u0000"`, `"\u0041\u00FF\u07ff\u0800\uffff"`, `"\"\\\/\b\f\n\r\t"`, `"a\/b"`,
		`1e5`, `-0`, `0x10`, `0X1p4`, `1E+2`, `1.5e-3`, `+1`, `Infinity`, `-Infinity`, `inf`, `NaN`, `nan`, `-nan`, `010`,
		`1.`, `-`, `--1`, `.5`, `1e400`, `-1e400`, `1e-400`, `123456789012345678901234567890`, `0.1`, `2.5e`, `1e+`,
		`true`, `false`, `null`, `[null,null]`, `{"a":null}`, `[]`, `{}`, `[[]]`, `[{}]`, `{"":1}`, `{"a":1,"a":2}`,
		``, ` `, `{`, `}`, `[`, `]`, `[1,`, `[1,]`, `{1:2}`, `{"a" 1}`, `{"a":1,}`, `{"a":1 "b":2}`, `[1 2]`, `tru`, `nul`,
		`fals`, `t`, `n`, `f`, `I`, `N`, `"abc`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\ud800"`, `"\udc00"`, `"\ud800\u0041"`,
		`"\ud800\udbff"`, `"\ud800x"`, `[1]x`, `1 2`, "\"a\x00b\"", "1\x00 garbage", "\x00a", "a\x00", "[1,2]\x00", `"\`,
		`{"a":}`, `{"a"`, `{"a":1`, `[1,2`, `:`, `,`, `'a'`, `[1,,2]`, `{,}`, `@`, `"` + "\x01\x1f\xff" + `"`,
		`{"k":[1,2,{"x":[true,false,null]}]}`, `[1e308,1e-308,4.9e-324]`, `-1.5E-3`, `0`, `-`, `00`, `-01`,
		`[0x1A, 0Xff]`, `[+5]`, `[1.5e+10]`, `{"\u0041":"\u0042"}`, `[9007199254740993]`, `1E400`,
	} {
		cs = append(cs, difftest.Case{Script: rt, Argv: []string{in}, JSON: true})
	}
	add := func(script string, json bool) { cs = append(cs, difftest.Case{Script: script, JSON: json}) }
	for _, in := range []string{"nil", "", "''", "{}", "123", "1e300", "true", "'[1]', 2", "tostring"} {
		if in != "" {
			add(fmt.Sprintf("return {pcall(cjson.decode, %s)}", in), false)
		}
		add(pc("cjson.decode("+in+")"), false)
	}
	add("local f = cjson.decode return {pcall(function() return f() end)}", false)
	add("return {pcall(function() local x = cjson.decode('{') end)}", false)
	add("return {pcall(function()\n\n return cjson.decode('[1,') end)}", false)
	// Nesting limits and their character positions.
	for _, n := range []int{999, 1000, 1001, 1002} {
		add(fmt.Sprintf("return {pcall(function() local t = cjson.decode(string.rep('[', %d) .. string.rep(']', %d)) return 'ok' end)}", n, n), false)
		add(fmt.Sprintf("return {pcall(function() local t = cjson.decode(string.rep('{\"a\":', %d) .. '1' .. string.rep('}', %d)) return 'ok' end)}", n, n), false)
	}
	add("return {pcall(cjson.decode, ' [ {\"a\": [[[1]]]}]')}", false)
	for _, d := range []string{"1", "2", "3", "0", "'x'", "5, 6"} {
		add(fmt.Sprintf("local r = {pcall(cjson.decode_max_depth, %s)} local ok, e = pcall(cjson.decode, '[[1],{\"a\":[2]}]') return {tostring(r[1]), tostring(r[2]), tostring(ok), type(e) == 'string' and e or 'table'}", d), false)
	}
	for _, m := range []string{"false", "'off'", "true", "'x'"} {
		for _, in := range []string{"0x10", "Infinity", "+1", "-inf", "NaN", "010", "1", "-0", "[1, nan]"} {
			add(fmt.Sprintf(numFmt+"local r = {pcall(cjson.decode_invalid_numbers, %s)} local ok, v = pcall(cjson.decode, %q) "+
				"if ok and type(v) == 'number' then v = fmt(v) elseif ok then v = type(v) end return {tostring(r[1]), tostring(r[2]), tostring(ok), v}", m, in), false)
		}
	}
	// Decoded types and values.
	add("local t = cjson.decode('[1,\"a\",true,false,null,{},[]]') local r = {} for i = 1, #t do r[i] = type(t[i]) end return r", false)
	add("local t = cjson.decode('[null]') return {tostring(t[1] == cjson.null), #t}", false)
	add("return tostring(cjson.decode('null') == cjson.null)", false)
	add("local t = cjson.decode('{\"a\":null}') return {tostring(t.a == cjson.null), cjson.encode(t)}", false)
	add("local t = cjson.decode('[1,2,3]') return {#t, t[1] + t[2] + t[3]}", false)
	add("local t = cjson.decode('{\"1\":\"a\",\"2\":\"b\"}') return {tostring(t[1]), t['1'], cjson.encode(t)}", true)
	add("return string.format('%.17g', cjson.decode('0.1'))", false)
	add("return string.format('%.17g', cjson.decode('123456789.123456789e-3'))", false)
	return cs
}

func TestDifferentialCJSON(t *testing.T) {
	r := difftest.StartRedis(t)
	enc := encodeCases()
	n := difftest.Run(t, r, enc)
	dec := decodeCases()
	m := difftest.Run(t, r, dec)
	t.Logf("encode: %d/%d cases match redis-server; decode: %d/%d", n, len(enc), m, len(dec))
}
