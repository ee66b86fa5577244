package tests

import (
	"math/rand"
	"strings"
	"testing"
)

// string.find, match, gmatch and gsub are Lua 5.1's: the same matches,
// captures, replacements and error texts as on Redis.
var patternCorpus = []string{
	"return {string.find('hello world', 'o w')}", "return {string.find('hello', 'l+')}", "return {string.find('hello', 'xyz')}",
	"return {string.find('a.b', '.', 1, true)}", "return {string.find('a.b', '%.')}", "return {string.find('abc', '')}",
	"return {string.find('abc', '', 10)}", "return {string.find('abc', '', 4)}", "return {string.find('abc', 'c', -1)}",
	"return {string.find('abc', 'a', -10)}", "return {string.find('abc', '^b')}", "return {string.find('abc', '^a')}",
	"return {string.find('aaa', 'a-', 2)}", "return {string.find('key=val', '(%w+)=(%w+)')}", "return {string.find('abc', '()b()')}",
	"return {string.find('a\\0b', '\\0', 1, true)}", "return {string.find('a\\0b', 'b\\0c')}", "return {string.find('abc', 'b', '2')}",
	"return {string.match('hello 123', '%d+')}", "return {string.match('  trim  ', '^%s*(.-)%s*$')}",
	"return {string.match('2024-01-15', '(%d+)-(%d+)-(%d+)')}", "return {string.match('abc', '()')}", "return {string.match('abc', 'x')}",
	"return {string.match('[[x]]', '%[(%b[])%]')}", "return {string.match('f(a(b)c)d', '%b()')}", "return {string.match('THE (quick) fox', '%f[%a]%a+')}",
	"return {string.match('hello', '(h)(e)(l)(l)(o)')}", "return {string.match('abab', '(ab)%1')}", "return {string.match('x = 10', '(%w+)%s*=%s*(%w+)')}",
	"return {string.match('abc', '[a-b]+')}", "return {string.match('abc', '[^a]+')}", "return {string.match('a]b', '[]]')}",
	"return {string.match('a-b', '[a%-]+')}", "return {string.match('\\1\\2x', '%c+')}", "return {string.match('AbC', '%u%l%u')}",
	"return {string.match('a1_ ', '%W')}", "return {string.match('\\255\\200', '%a')}", "return {string.match('é', '%w')}",
	"return {string.match('abc$', 'c$')}", "return {string.match('abc', 'b$')}", "return {string.match('a$b', '$b')}",
	"return {string.match('hello', '.-l')}", "return {string.match('hello', '.*l')}", "return {string.match('hello', 'l?lo')}",
	"return {string.match('hello', 'x*')}", "return {string.match('', '.*')}", "return {string.match('abc', '.', 10)}",
	"return {string.match('abc', 'a\\0b')}", "return {string.match('ab', '%z')}", "return {string.match('a\\0', '%z')}",
	// errors
	"return string.find('abc', '%')", "return string.find('abc', '[a')", "return string.find('abc', '[')", "return string.find('abc', '(')",
	"return string.find('abc', ')')", "return string.find('abc', '%1')", "return string.find('abc', '(a)%2')", "return string.find('abc', '%b')",
	"return string.find('abc', '%ba')", "return string.find('abc', '%f')", "return string.find('abc', '%fa')", "return string.match('abc', '(()')",
	"return string.find('abc', string.rep('()', 33))", "return string.find('abc', '[%')", "return string.find('abc', '(a')",
	"return string.find()", "return string.find('a')", "return string.find('a', {})", "return string.match('a', 'a', 'x')",
	"return {pcall(string.find, 'abc', '[a')}", "return {pcall(string.gsub, 'abc', '(', 'x')}",
	// gsub
	"return {string.gsub('hello world', 'o', '0')}", "return {string.gsub('hello world', 'o', '0', 1)}", "return {string.gsub('abc', '', '-')}",
	"return {string.gsub('hello', '(l)(l)', '%2%1')}", "return {string.gsub('hello', 'l', '%0%0')}", "return {string.gsub('hello', 'l', '%%')}",
	"return {string.gsub('hello', 'l', '%x')}", "return {string.gsub('hello', 'l', 'x%')}", "return {string.gsub('hello', 'l', '%2')}",
	"return {string.gsub('hello', '(l)', '%2')}", "return {string.gsub('abc', '()', '%1')}", "return {string.gsub('abc', '%w', '%0%0')}",
	"return {string.gsub('abc', '^a', 'x')}", "return {string.gsub('aaa', '^a', 'x')}", "return {string.gsub('abc', 'b*', '-')}",
	"return {string.gsub('hello world', '%w+', function(w) return w:upper() end)}", "return {string.gsub('abc', '%w', function() end)}",
	"return {string.gsub('abc', '%w', function() return false end)}", "return {string.gsub('abc', '%w', function(c) return 1.5 end)}",
	"return {string.gsub('abc', '%w', {a = 'A', b = true})}", "return {string.gsub('$x $y', '%$(%w+)', {x = 10})}",
	"return {string.gsub('abc', '%w', function() return {} end)}", "return {string.gsub('abc', '%w', function() return true end)}",
	"return {string.gsub('abc', '(%w)', '%1', -1)}", "return {string.gsub('abc', 'b', 12)}", "return {string.gsub('abc', 'b', 1.5)}",
	"return {string.gsub('abc', 'b')}", "return {string.gsub('abc', 'b', true)}", "return {string.gsub('abc', 'b', 'x', 'y')}",
	"return {string.gsub('abc', 'b', 'x', 2^32 + 1)}", "return {string.gsub('a.b.c', '%.', '%%')}", "return {string.gsub('abc', '', '')}",
	"return {string.gsub('hello', '(h)(e)', function(a, b) return b .. a end)}", "return {string.gsub('x', '()', function(p) return p end)}",
	"return {string.gsub('abc', '.', setmetatable({}, {__index = function(t, k) return k:upper() end}))}",
	// gmatch
	"local t = {} for w in string.gmatch('one two  three', '%a+') do t[#t + 1] = w end return t",
	"local t = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t + 1] = k .. v end return t",
	"local t = {} for w in string.gmatch('abc', '') do t[#t + 1] = '<' .. w .. '>' end return t",
	"local t = {} for w in string.gmatch('abc', 'x*') do t[#t + 1] = '<' .. w .. '>' end return t",
	"local t = {} for w in string.gmatch('^a^a', '^a') do t[#t + 1] = w end return t",
	"local t = {} for p in string.gmatch('abc', '()') do t[#t + 1] = p end return t",
	"local t = {} for w in string.gfind('a b', '%a') do t[#t + 1] = w end return t",
	"local f = string.gmatch('ab', '.') return {f(), f(), f(), f()}", "return string.gmatch('a')", "return {pcall(string.gmatch('a', '%'))}",
	// long subjects: linear, as in Lua
	"local s = string.rep('a', 100000) local r, n = s:gsub('a', 'aaaa') return {#r, n}",
	"return {string.find(string.rep('a', 100000) .. 'b', 'a*b')}", "return #string.match(string.rep('ab', 50000), '.*')",
	"local n = 0 for w in string.gmatch(string.rep('ab ', 30000), '%a+') do n = n + 1 end return n",
}

func TestScriptingPatterns(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range patternCorpus {
		p.Same(t, "EVAL", body, "0")
	}
}

// patternPieces build random patterns: classes, sets, quantifiers,
// anchors, captures, back-references, %b and %f, malformed ones too.
var patternPieces = []string{"a", "b", ".", "%a", "%d", "%s", "%w", "%A", "%p", "[ab]", "[^a]", "[a-c]", "[%a_]", "[]]",
	"*", "+", "-", "?", "^", "$", "(", ")", "()", "%1", "%2", "%b()", "%f[%a]", "%f[^%w]", "%", "[", "%z", "x", "%.", "%%"}

var subjectPieces = []string{"a", "b", "c", "ab", " ", "(", ")", "1", "x", ".", "%", "_", "A", "\x00", "é"}

// TestScriptingPatternsRandom runs random patterns over random subjects
// through find, match, gsub (string, function and table replacements) and
// gmatch, on both servers, comparing every result and error.
func TestScriptingPatternsRandom(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	rng := rand.New(rand.NewSource(27))
	const script = `local out = {}
local function show(ok, ...)
  local t = {tostring(ok)}
  for i = 1, select('#', ...) do t[#t + 1] = tostring((select(i, ...))) end
  return table.concat(t, '|')
end
for i = 1, #ARGV, 2 do
  local s, pat = ARGV[i], ARGV[i + 1]
  local r = {show(pcall(string.find, s, pat)), show(pcall(string.find, s, pat, 2)), show(pcall(string.match, s, pat)),
    show(pcall(string.gsub, s, pat, '<%0>')), show(pcall(string.gsub, s, pat, function(a) return a and '[' .. a .. ']' end, 3)),
    show(pcall(string.gsub, s, pat, {a = 'A'}))}
  local ok, e = pcall(function()
    local n = 0
    for a, b in string.gmatch(s, pat) do n = n + 1 r[#r + 1] = tostring(a) .. ',' .. tostring(b) if n > 20 then break end end
  end)
  r[#r + 1] = tostring(ok) .. tostring(e)
  out[#out + 1] = table.concat(r, ' ; ')
end
return out`
	for batch := 0; batch < 20; batch++ {
		var argv []string
		for i := 0; i < 100; i++ {
			var s, pat strings.Builder
			for n := rng.Intn(10); n > 0; n-- {
				s.WriteString(subjectPieces[rng.Intn(len(subjectPieces))])
			}
			for n := rng.Intn(6) + 1; n > 0; n-- {
				pat.WriteString(patternPieces[rng.Intn(len(patternPieces))])
			}
			argv = append(argv, s.String(), pat.String())
		}
		p.Same(t, append([]string{"EVAL", script, "0"}, argv...)...)
	}
}
