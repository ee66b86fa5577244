package tests

import (
	"fmt"
	"strings"
	"testing"
)

// namesCorpus is runtime errors whose Lua 5.1 message names the value
// involved ("attempt to index local 't' (a nil value)"), or deliberately
// names none; each is sent as EVAL <body> 0 to both servers and the whole
// error reply must be byte-identical.
var namesCorpus = []string{
	// arithmetic and unary minus: Lua blames the first operand unless it converts to a number
	`local x; return x + 1`,
	`local x = {}; return x * 2`,
	`local x = 'abc'; return x - 1`,
	`local x = true; return 1 + x`,
	`local a, b = 1, nil; return a + b`,
	`local a, b = nil, 1; return a + b`,
	`local a = '5'; local b = {}; return a + b`,
	`local a = 'x'; local b = {}; return a + b`,
	`local a = {}; return a % 2`,
	`local a = {}; return 2 ^ a`,
	`local a = {}; return a / 1`,
	`local a; return 1 - a`,
	`return 1 + nil`,
	`return 'a' + 1`,
	`return KEYS + 1`,
	`return 1 + ARGV`,
	`return redis * 2`,
	`return -KEYS`,
	`local t = {}; return t.n + 1`,
	`local t = {}; return 1 + t.n`,
	`local t = {a = {}}; return t.a.b + 1`,
	`local t = {}; local k = 'n'; return t[k] + 1`,
	`local t = {}; return t[1] + 1`,
	`local n = 'x'; local f = function() return n + 1 end; return f()`,
	`local n = {}; local f = function() return -n end; return f()`,
	`local a = {}; return -a`,
	`local a = 'abc'; return -a`,
	`local a; return -a`,
	`local t = {}; return -t.x`,
	`return -{}`,
	`local f = function() end; return -f`,
	// length
	`local x; return #x`,
	`local x = 5; return #x`,
	`local x = true; return #x`,
	`local t = {}; return #t.x`,
	`local n = 1; local f = function() return #n end; return f()`,
	`return #KEYS[1]`,
	`return #ARGV.x`,
	`return #redis.call`,
	`return #nil`,
	// concatenation: from the right, the left of the failing pair unless it is a string or number
	`local w = true; return 'x' .. w .. 'y'`,
	`local w = true; return w .. 'x'`,
	`local w; return 'x' .. w`,
	`local a, b = 'x', {}; return a .. b`,
	`local a, b = {}, 'x'; return a .. b`,
	`local a, b = {}, {}; return a .. b`,
	`local a, b, c = 'x', nil, 'z'; return a .. b .. c`,
	`local a, b, c = nil, 'y', 'z'; return a .. b .. c`,
	`local a, b, c = 'x', 'y', nil; return a .. b .. c`,
	`local a, b, c = 1, 2, false; return a .. b .. c`,
	`local t = {}; return 'x' .. t.name`,
	`local t = {}; return t.name .. 'x'`,
	`local t = {}; return 'x' .. t.a .. 'y'`,
	`local t = {}; return 'a' .. t[1]`,
	`local n = nil; local f = function() return 'x' .. n end; return f()`,
	`return 'x' .. KEYS`,
	`return KEYS .. 'x'`,
	`return 'x' .. {}`,
	`return {} .. 'x'`,
	`return 'x' .. nil`,
	`local function f() end; return 'x' .. f()`,
	`local function f() return {} end; return 'x' .. f()`,
	`return 'x' .. 1 .. {}`,
	`local n = 5; return 'x' .. n .. {}`,
	// indexing: the table operand, read or written
	`local t = {}; return t.a.b`,
	`local t = {}; return t.a.b.c`,
	`local t = nil; return t.x`,
	`local t = nil; return t[1]`,
	`local t = 5; return t.x`,
	`local t = 'str'; return t.x.y`,
	`local t = true; t.x = 1`,
	`local t; t[1] = 2`,
	`local t = {}; t.x.y = 1`,
	`local t = {}; t[1].y = 1`,
	`local t = {}; local k = 'a'; return t[k].x`,
	`local t = {}; return t[1].x`,
	`local t = {}; return t['a b'].x`,
	`return KEYS.x.y`,
	`return redis.nope.x`,
	`return cjson.x.y`,
	`local t = {}; local f = function() return t.x.y end; return f()`,
	`local u; local f = function() return u.x end; return f()`,
	`local u; local f = function() u.x = 1 end; return f()`,
	`local t = {}; return (t.a or t.b).c`,
	`local t = {}; return (t.a).c`,
	`local t = {}; return (t.a and t.b).c`,
	`local function f() end; return f().x`,
	`local function f() end; f().x = 1`,
	`return ({}).x.y`,
	`return (nil).x`,
	`local t = {a = {}}; return t.a.b.c`,
	`local t = {{}}; return t[1][2][3]`,
	`local t = {}; local x = t.y; return x.z`,
	`local x; local y = x; return y.z`,
	// calls and methods
	`local x = 1; return x()`,
	`local x; x()`,
	`local t = {}; t.foo()`,
	`local t = {}; return t.foo()`,
	`local t = {}; t:foo()`,
	`local s = 'abc'; return s:foo()`,
	`local s = 'abc'; return s:upper():foo()`,
	`local t = {}; return t.a.b()`,
	`return KEYS()`,
	`return redis()`,
	`return redis.nope()`,
	`return redis.call.x()`,
	`return table.nope()`,
	`return string.nope('x')`,
	`return ('x'):nope()`,
	`local t = {}; t.x.y:z()`,
	`local t = {}; return t:x():y()`,
	`local u = 5; local f = function() return u() end; return f()`,
	`local u = {}; local f = function() return u.v() end; return f()`,
	// parameters, varargs, self, multiple assignment
	`local function f(a) return a() end; return f()`,
	`local function f(a) return a.x end; return f()`,
	`local function f(a, b) return a + b end; return f(1)`,
	`local function f(...) local a = ...; return a.x end; return f()`,
	`local function f(...) return (...).x end; return f()`,
	`local function f(...) return select(1, ...).x end; return f()`,
	`local function f(...) local t = {...}; return t[1].x end; return f()`,
	`local function f(...) return arg.x.y end; return f()`,
	`local function f(self) return self.x.y end; return f({})`,
	`local obj = {}; function obj:m() return self.a.b end; return obj:m()`,
	`local obj = {}; function obj.m(x) return x.a.b end; return obj.m({})`,
	`local x, y = 1; return y.z`,
	`local x, y = 1, nil, 3; return y.z`,
	`local x, y; x, y = 1; return y.z`,
	`local a, b, c = {}, {}; return c.d`,
	// loops, the for statements' own errors, conditionals
	`for i = 1, 2 do local t; t.x = i end`,
	`for i = 1, 2 do return i.x end`,
	`for i = 1, 2 do return i() end`,
	`for k, v in pairs({a = 1}) do return v.x end`,
	`for k, v in pairs({a = 1}) do return k.x end`,
	`for k, v in ipairs({1}) do return v() end`,
	`for k in nil do end`,
	`for k in 5 do end`,
	`for i = nil, 2 do end`,
	`for i = 1, 'x' do end`,
	`for i = 1, 2, {} do end`,
	`for i = 1, nil do end`,
	`for i = {}, 2, 3 do end`,
	`local t = {}; for i = 1, t.n do end`,
	`local t = nil; for i = 1, t.n do end`,
	`local t = {}; for i = 1, t.a.b do end`,
	`local t = {}; for k, v in pairs(t.a.b) do end`,
	`local t = {}; for k, v in t.a do end`,
	`local i = 1; while i < 3 do local t; t.x = 1; i = i + 1 end`,
	`local i = 0; repeat local t; i = i + 1; t.x = i until i > 2`,
	`local t = {}; if t.x then return 1 else return t.y.z end`,
	`local t = {}; if not t.x then return t.y.z end`,
	`local c = true; local t = {}; if c then t = nil end; return t.x`,
	// table constructors
	`local t = {x = 1}; return {t.x, t.y.z}`,
	`local t = {}; return {a = t.y.z}`,
	`local t = {}; return {[t.y.z] = 1}`,
	`local t = {}; return {1, 2, t.y.z}`,
	`return {1, KEYS.x.y}`,
	// comparisons: Lua 5.1 names no operand
	`local x = 1; local y = {}; return x < y`,
	`local x = {}; local y = {}; return x < y`,
	`local x; return x < 1`,
	`local x; return 1 <= x`,
	`local a, b = 'a', 1; return a < b`,
	`local t = {}; return t.x < 1`,
	`return {} < {}`,
	`return nil > 1`,
	`local x = 'a'; return x > 2`,
	// metatables, strings' methods, library values, shadowed locals
	`local x = nil; x.y.z = 1`,
	`local t = setmetatable({}, {__index = 5}); return t.x`,
	`local t = setmetatable({}, {__index = function(t, k) return nil end}); return t.x.y`,
	`local t = setmetatable({}, {__index = function(t, k) local z; return z.q end}); return t.x`,
	`local t = setmetatable({}, {__add = function(a, b) return nil + a end}); return t + 1`,
	`local t = setmetatable({}, {__concat = function(a, b) return 'c' end}); return 'x' .. t .. 'y'`,
	`local t = setmetatable({}, {__call = function(self, a) return a.x end}); return t()`,
	`local t = setmetatable({}, {__call = 5}); return t()`,
	`local s = 'abc'; return s.x.y`,
	`local s = 'abc'; return #s.x`,
	`local s = 'abc'; return s:len().x`,
	`return string.len('x').y`,
	`return tostring.x`,
	`return #tostring`,
	`return tostring + 1`,
	`return 'x' .. tostring`,
	`return math.floor(1).x`,
	`return type.x.y`,
	`local x = 1; local x = nil; return x.y`,
	`local x = {}; do local x = nil; return x.y end`,
	`local x = {}; do local y = nil end; return x.y.z`,
	// values from expressions, redis.call, cjson; qless-like code
	`local t = {}; local r = t.x.y or 1; return r`,
	`local t = {}; return t.x.y == nil`,
	`local t = {}; return not t.x.y`,
	`local t = {}; local a = t.x and t.x.y; return a.z`,
	`local x = KEYS[1]; return x.y`,
	`local x = ARGV[1]; return x.y`,
	`local v = redis.call('get', 'nokey'); return v.x`,
	`local v = redis.call('get', 'nokey'); return v + 1`,
	`local v = redis.call('get', 'nokey'); return 'k' .. v`,
	`local v = redis.call('incr', 'cnt'); return v .. {}`,
	`local j = cjson.decode('{}'); return j.a.b`,
	`local j = cjson.decode('{"a":1}'); return j.a.b`,
	`local j = cjson.decode('[1]'); return j[2].x`,
	`local function g() return nil end; local r = g(); return r.x`,
	`local function g() return 1, nil end; local a, b = g(); return b.x`,
	`local t = {}; t[t.x.y] = 1`,
	`local t = {}; t.x = t.y.z`,
	`local t = {}; t.x, t.y = 1, t.a.b`,
	`local a, b = {}, nil; a.x, b.y = 1, 2`,
	`local t = {}; return t.x.y .. t.z`,
	`local t = {}; return t.x .. t.y .. t.z`,
	`local t = {x = 'a'}; return t.x .. t.y .. t.z`,
	`local t = {x = 'a', y = 'b'}; return t.x .. t.y .. t.z`,
	`local t = {}; return (t.x or 'a') .. t.y`,
	`local t = {x = {}}; return t.x.y.z`,
	`local w = 'worker'; local job = {}; return 'job ' .. job.jid .. ' for ' .. w`,
	`local data = {}; return tonumber(data.count) + 1`,
	`local data = {}; return data.count + 1`,
	`local args = {}; return args[1]:lower()`,
	`local s = ARGV[1]; return s:lower()`,
	`local f = string.format; return f('%s', 'x').y.z`,
	`local t = {}; local n = #t.list`,
	`local t = {}; return t.count - 1`,
	`local t = {}; return 10 - t.count`,
	`local t = {}; return t.count * t.size`,
	`local t = {count = 1}; return t.count * t.size`,
	`local x = 1; local function f() return x.y end; return f()`,
	`local x; local function f() local function g() return x.y end; return g() end; return f()`,
	`local n; local function f() return n + n end; return f()`,
	`local n = 'q'; local function f() return 1 + n end; return f()`,
	`local s = {}; local function f() return s .. 'x' end; return f()`,
	`local s = {}; local function f() return 'x' .. s end; return f()`,
	`local f; f = function(n) if n == 0 then local t; return t.x end; return f(n - 1) end; return f(3)`,
	`local function f(n) return n.x end; return f(1)`,
	`local function f(n) return n .. {} end; return f(1)`,
	`local function f(t) return t.x.y end; return f({})`,
	`local function f(t) t.a.b = 1 end; f({})`,
	`local x = 'a'; local y = 'b'; local z; return x .. y .. z`,
	`local big = {}; for i = 1, 10 do big[i] = i end; return big[11].x`,
	// assignments into the erroring register, for headers, and/or chains, keys
	`local x = {}; x = x.a.b`,
	`local x = {}; x = x.a.b + 1`,
	`local x = {}; x = x.a .. 'y'`,
	`local s = ''; local t = {}; s = s .. t.x`,
	`local n = 0; local t = {}; n = n + t.x`,
	`local n = 0; local t = {}; n = t.x + n`,
	`local a; local b = a.x`,
	`local function f(a) a = a.b.c end; f({})`,
	`local function f(a) a = a.b; return a.c end; return f({})`,
	`local t = {}; t = t.a; return t.b`,
	`local t = {}; local a, b = t.x.y, 1`,
	`local t = {}; local a, b = 1, t.x.y`,
	`local t = {}; local a, b; a, b = t.x.y, 1`,
	`local t = {}; local a, b; a, b = 1, t.x.y`,
	`local u = {}; (function() u = u.a.b end)()`,
	`local u = {}; (function() u = u.a end)(); return u.b`,
	`local t = {a = {}}; t.a:foo()`,
	`local t = {a = {}}; return t.a:foo()`,
	`local t = {}; return tostring(t.x.y)`,
	`local t = {}; return t.x.y, 1`,
	`local t = {}; return 1, t.x.y`,
	`local t = {}; t.x.y, t.z = 1, 2`,
	`local t = {}; t.z, t.x.y = 1, 2`,
	`local t = {}; return (t.x).y`,
	`local t = {}; while t.x.y do end`,
	`local t = {}; if t.x.y then end`,
	`local t = {}; if t.x.y == 1 then end`,
	`local t = {}; local a = true; if a and t.x.y then end`,
	`local t = {}; local a = false; if a or t.x.y then end`,
	`local n = 5; return n:len()`,
	`local b = true; return b:x()`,
	`local t = {}; return #t.x`,
	`local u; local f = function() return #u end; return f()`,
	`return #KEYS.x`,
	`local t = {}; for i = 1, #t.x do end`,
	`local t = {}; for i = #t.x, 1 do end`,
	`local t = {}; for i = 1, 2, #t.x do end`,
	`local t = {}; for i = t.x.y, 1 do end`,
	`local t = {}; for i = 1, t.x.y do end`,
	`local t = {}; for k in t.x.y do end`,
	`local t = {}; for k, v in next, t.x.y do end`,
	`local t = {}; for k, v in pairs(t) do end; return t.x.y`,
	`local t = {1}; for k, v in pairs(t) do local z = v.x end`,
	`local t = {{}}; for k, v in ipairs(t) do local z = v.x.y end`,
	`local t = {{}}; for _, v in ipairs(t) do v.x.y = 1 end`,
	`local t = {}; for i = 1, 3 do t[i] = i end; for i = 1, 3 do local x = t[i].y end`,
	`local s = 0; for i = 1, 3 do s = s + i.x end`,
	`local a = {}; local b = a.x or a.y.z`,
	`local a = {}; local b = a.x and a.x.y or a.z.w`,
	`local x; local y = x and x.y; return y.z`,
	`local x = {}; return x.a and x.b or x.c.d`,
	`local t = {}; return t.a == t.b.c`,
	`local t = {}; return t.a < t.b.c`,
	`local t = {}; return not (t.a).b`,
	`local t = {}; local x = -t.a.b`,
	`local t = {}; local x = -t.a`,
	`local t = {}; local x = #t.a`,
	`local t = {}; local x = t.a + t.b`,
	`local t = {a = 1}; local x = t.a + t.b`,
	`local t = {a = 1}; local x = t.b + t.a`,
	`local t = {a = 'x'}; local x = t.a + 1`,
	`local t = {a = '1'}; local x = t.a + t.b`,
	`local t = {}; local x = t.a * 2 + 1`,
	`local t = {}; local x = 1 + 2 * t.a`,
	`local a, b, c = 1, 2; return a + b + c`,
	`local a, b, c = 1, 2; return a * (b + c)`,
	`local a, b, c = 1, 2; return (a + c) * b`,
	`local a, b = 1, 2; local c = {}; return a + b * c.x`,
	`local t = {}; return t.x % 2`,
	`local t = {}; return 2 ^ t.x`,
	`local t = {}; return t.x / t.y`,
	`local f = function(...) return ... end; return f().x`,
	`local f = function(...) return ... end; return (f()).x`,
	`local t = {}; t[t.x.y] = 1`,
	`local t = {}; t[1][2] = 3`,
	`local t = {{}}; t[1][2][3] = 4`,
	`local t = {}; t.a.b.c = 1`,
	`local t = {a = {}}; t.a.b.c = 1`,
	`local x = 'str'; x.y = 1`,
	`local x = 'str'; x[1] = 2`,
	`local x = 5; x.y = 1`,
	`local f = function() end; f.x = 1`,
	`local f = function() end; return f.x`,
	`local f = function() end; return f:x()`,
	`local t = {}; return t.x:y()`,
	`local t = {}; return t.x.y:z()`,
	`local t = {x = {}}; return t.x:y()`,
	`local t = {x = {}}; return t.x.y:z()`,
	`local t = {x = {y = 5}}; return t.x.y:z()`,
	`local t = {x = {y = 'a'}}; return t.x.y:z()`,
	`local t = {}; t:x()`,
	`local c = redis.call; return c('get', 'nokey').x`,
	`return redis.call('get', 'nokey').x`,
	`return redis.call('get', 'nokey') .. 'x'`,
	`return #redis.call('get', 'nokey')`,
	`return redis.call('get', 'nokey') + 1`,
	`local v = redis.call('get', 'nokey'); if v then return 1 end; return v.x`,
	`return table.concat.x`,
	`return string.x.y`,
	`return math.pi.x`,
	`return math.pi()`,
	`return math.huge .. {}`,
	`local tbl = table; return tbl.x.y`,
	`local tbl = table; return tbl()`,
	`local t = setmetatable({}, {__index = {}}); return t.x.y`,
	`local mt = {}; mt.__index = mt; local o = setmetatable({}, mt); return o.x.y`,
	`local mt = {}; mt.__index = mt; local o = setmetatable({}, mt); return o:nope()`,
	`local Class = {}; Class.__index = Class; function Class.new() return setmetatable({}, Class) end; function Class:go() return self.data.x end; return Class.new():go()`,
	`local Class = {}; Class.__index = Class; function Class:go() return self.missing() end; return setmetatable({}, Class):go()`,
	`local Class = {}; Class.__index = Class; function Class:go() return self:missing() end; return setmetatable({}, Class):go()`,
	`local function outer() local x; local function inner() return x.y end; return inner() end; return outer()`,
	`local function outer() local x; return function() return function() return x.y end end end; return outer()()()`,
	`local a = 1; local function f() a = a + 1; return a.b end; return f()`,
	`local a = {}; local function f() local b = a; return b.x.y end; return f()`,
	`local t = {}; local function f() return t end; return f().x.y`,
	`local t = {}; local function f() return t.x end; return f().y`,
	`local t = {n = 1}; return t.n .. t`,
	`local x = 5 local y = x .. {} return y`,
	`local s = 'a'; for i = 1, 2 do s = s .. {} end`,
	`local list = {}; return table.concat(list, ',') .. list.x`,
	`local a = {}; a.b = a.c.d`,
	`local t = {}; local k = t.x; return k.y`,
	`local t = {}; local k = t['x']; return k.y`,
	`local t = {}; return t['x'].y`,
	`local t = {}; return t["a.b"].y`,
	`local t = {}; return t[true].y`,
	`local t = {}; return t[1.5].y`,
	`local t = {}; local k = {}; return t[k].y`,
	`local t = {}; return t[t].y`,
	`local i = 1; local t = {}; return t[i].x`,
	`local i = 1; local t = {}; return t[i + 1].x`,
	`return KEYS[1].x`,
	`return ARGV[1].x`,
	`return KEYS[1] .. nil`,
	// metamethods, callbacks, methods on call results, upvalues, values from KEYS/ARGV and redis.call
	`local function f() end; f.x.y = 1`,
	`local function f() end; return f.x`,
	`local n = 1; return n .. {} .. 'x'`,
	`local o; (function() o:m() end)()`,
	`local n = 5; return n:rep(2)`,
	`local function f() end; return tostring(f().x)`,
	`local t = {}; return { {a = {b = t.x.y}} }`,
	`local t = {}; repeat local u = t until u.x.y`,
	`local t = {}; while true do if t.x.y then break end end`,
	`return 1 .. nil`,
	`return 'a' .. 1 .. nil`,
	`local a = {}; return a.b .. 1`,
	`local t = {}; local x, y, z = t.a, t.b.c, t.d`,
	`local t = {}; t.a, t.b.c = t.d.e, 1`,
	`local a; a = a + 1`,
	`local a, b = 1; a, b = b + 1, a`,
	`local t = {}; return t[#t].x`,
	`local t = {}; return t[#t + 1].x`,
	`local s = 'abc'; return s[1].x`,
	`local t = {}; t[nil] = 1`,
	`local t = {}; t[0/0] = 1`,
	`local f = function(...) local a, b = ... ; return b.x end; return f(1)`,
	`local t = {f = function() end}; return t.f().x`,
	`local t = {}; t.f = function(self) return self.a.b end; return t:f()`,
	`local x = 0; for i = 1, 3 do x = x + (i == 2 and nil or i) end`,
	`local a = {}; local b = a; b = b.c; return b.d`,
	`local function f(a) local b = a; return b.c.d end; return f({})`,
	`local x = {} return x.y.z, x.w`,
	`return (KEYS[1]).x`,
	`local k = KEYS; return k[1].x`,
	`local t = {} return #t[1]`,
	`local t = {} return -t[1]`,
	`local t = {} return t[1] .. ''`,
	`local t = {{}} return t[1].a .. ''`,
	`local t = {{}} return '' .. t[1].a`,
	`local u = {} local function f() return '' .. u.a end return f()`,
	`local u = {} local function f() return u.a .. '' end return f()`,
	`local u = {} local function f() return -u.a end return f()`,
	`local u = {} local function f() return #u.a end return f()`,
	`local u = {} local function f() return u.a() end return f()`,
	`local u = {} local function f() return u:a() end return f()`,
	`local table = table; return table()`,
	`local redis = redis; return redis + 1`,
	`local u = 'x' local function f() return u:nope() end return f()`,
	`local u = 1 local function f() return u:nope() end return f()`,
	`local u = {} local function f() return u.a + 1 end return f()`,
	`local u = {} local function f() return 1 + u.a end return f()`,
	`local u = {} local function f() return u.a.b end return f()`,
	`local function f() return {} end; return f():m()`,
	`local function f() return {} end; return f():m().x`,
	`local a, b = {}, {}; local f = function() return a, b end; return a.x.y`,
	`local a, b = {}, {}; local f = function() return a, b end; local c; return c.x`,
	`local a, b, c; return c.x`,
	`local function f(...) local n = select('#', ...); return (...).x end; return f()`,
	`local function f(...) local n = select('#', ...); return (...).x end; return f(nil, 2)`,
	`for i = 1, 3 do local v = i .. nil end`,
	`for i = 1, 3 do local v = nil .. i end`,
	`local Q = {}; function Q.job(j) return nil end; local job = Q.job('x'); return job:data()`,
	`local Q = {}; function Q.job(j) return {} end; local job = Q.job('x'); return job:data()`,
	`local Q = {}; function Q.job(j) return {data = function() end} end; return Q.job('x'):data().x`,
	`return string.gsub('abc', '%w', function(c) local t; return t.x end)`,
	`return string.gsub('abc', '%w', function(c) return c .. {} end)`,
	`local t = setmetatable({}, {__index = function(t, k) return k.x end}); return t.y`,
	`local t = setmetatable({}, {__tostring = function(t) local z; return z.q end}); return tostring(t)`,
	`local t = setmetatable({}, {__eq = function(a, b) return a.x.y end}); return t == setmetatable({}, getmetatable(t))`,
	`local t = setmetatable({}, {__lt = function(a, b) return a.x.y end}); return t < t`,
	`local t = setmetatable({}, {__unm = function(a) return a.x.y end}); return -t`,
	`local t = setmetatable({}, {__newindex = function(t, k, v) return v.x end}); t.a = 1`,
	`local a = {} local b = a.c local d = b and b.e return d.f`,
	`local x = 1 local y = x > 0 and {} or nil return y.z.w`,
	`local s = 'a' s = s .. s .. {} return s`,
	`local t = {1, 2, 3} return t[1] .. t[2] .. t[4]`,
	`local t = {} t.n = (t.n or 0) + t.inc`,
	`local opts = {} local timeout = tonumber(opts.timeout) or opts.default.timeout`,
	`local x = KEYS[1] or ARGV[1] return x.y`,
	`return ARGV[1]:upper()`,
	`return #ARGV[1]`,
	`return ARGV[1] + 1`,
	`local jid = ARGV[1] return 'ql:j:' .. jid`,
	`local keys = redis.call('keys', 'nope*') return keys[1]:len()`,
	`local v = redis.call('hget', 'h', 'f') return cjson.decode(v)`,
	`local v = redis.call('hgetall', 'h') return v[1] .. v[2]`,
	`local function g(a, b, c) return c.x end return g(1, 2)`,
	`local function g(a, b, c) return b + c end return g(1, 2)`,
	`local function g(a, b, c) return a .. b .. c end return g('x', 'y')`,
	`local function g(t) for k, v in pairs(t) do return v.x end end return g({1})`,
	`local function g(t) for i, v in ipairs(t) do return v .. {} end end return g({'a'})`,
	`local function g(t) for i = 1, #t do return t[i].x end end return g({1})`,
	`local function g(t) local r = {} for i = 1, #t do r[i] = t[i].x end return r end return g({{x = 1}, 2})`,
	// locals declared after a block, in the registers its locals had
	`local t = {} do local a, b = 1, 2 end local c = 5 return #c`,
	`local t = {} for i = 1, 2 do local x = i end local s, d = 1, 5 return #d`,
	`local t = {} for i = 1, 2 do local x = i end local s, d = 1, 5 return #s`,
	`local t = {} for k, v in pairs({1}) do local x = v end local s = 5 return s.y`,
	`local function f() local a = {} if a then local b, c = 1, 2 end local d = 7 return d.x end return f()`,
	`local function f(p) while p do local q = p; p = nil end local r = 1 return r() end return f(1)`,
	`local function f() local n = 0 repeat local m = n; n = n + 1 until m > 1 local z = true return z .. 'x' end return f()`,
	`local a = {} if a then local x = 1 else local y = 2 end local z = nil return z.q`,
	`local a = {} if not a then local x = 1 else local y = 2; local w = 3 end local z = nil return z.q`,
	`local a = 1 do local b = 2 do local c = 3 end local d = 4 end local e = 'x' return -e`,
	`local u = {} local function g() do local h = 1 end local k = nil return k.m end return g()`,
	`local x = {} for i = 1, 2 do for j = 1, 2 do local y = i end local z = 1 end local w return w.v`,
	`local t = {} do local a = 1 end return t.x.y`,
	`local t = {} do local a = 1 end local v = t.x return v.y`,
	`local o = 1 do local p = 2 end return ({}).a.b`,
	`for i = 1, 2 do local x = 1 end return KEYS.a.b`,
	`local f = function() for i = 1, 1 do end local n = {} return n.a.b end return f()`,
	`local s = 'x' for i = 1, 3 do local k = i end local v = {} return s .. v`,
}

func TestScriptingErrorNames(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range namesCorpus {
		p.Same(t, "EVAL", body, "0")
	}
	// past 256 constants a key is no instruction operand, and Lua names it '?'
	var big strings.Builder
	big.WriteString("local big = {")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&big, "'s%d',", i)
	}
	big.WriteString("}; ")
	for _, body := range []string{`local t = {}; return t.zz.y`, `local t = {}; return t.s5.y`, `local t = {}; return t:nope()`, `local t = {}; local x = t.zz; return x.y`} {
		p.Same(t, "EVAL", big.String()+body, "0")
	}
}

// namesCaughtCorpus is runtime errors caught by pcall, xpcall and table.sort,
// which Lua 5.1 names as well.
var namesCaughtCorpus = []string{
	`return select(2, pcall(function() local t; return t.x end))`,
	`return {pcall(function() local t; return t.x end)}`,
	`local ok, e = pcall(function() local a = {}; return a + 1 end) return e`,
	`local ok, e = pcall(function(t) return t.x.y end, {}) return e`,
	`local ok, e = pcall(function(...) local a, b = ...; return a .. b end, 'x') return e`,
	`return select(2, xpcall(function() local t; return t.x end, function(e) return e end))`,
	`return select(2, xpcall(function() local a = 'x'; return -a end, function(e) return 'h: ' .. e end))`,
	`return select(2, xpcall(function() return math.floor({}) end, function(e) return e end))`,
	`return {xpcall(function() return 1, 2 end, function(e) return e end)}`,
	`return {xpcall(function() error({1}) end, function(e) return type(e) end)}`,
	`return {pcall(nil)}`,
	`return {pcall({})}`,
	`return {pcall(setmetatable({}, {__call = function(self, a) return a.x end}))}`,
	`return {pcall(setmetatable({}, {__call = function(self, a) return a + 1 end}), 5)}`,
	`return {pcall(function() return 1, 2, 3 end)}`,
	`return select('#', pcall(function() return 1, nil, 3 end))`,
	`return {pcall(error, 'x')}`,
	`return {pcall(error, 'x', 0)}`,
	`return {pcall(error)}`,
	`return {pcall(function() error('msg') end)}`,
	`return {pcall(function() error('msg', 2) end)}`,
	`return {pcall(function() redis.call('nosuch') end)}`,
	`local ok, e = pcall(function() local ok2, e2 = pcall(function() local u; return u.v end); return e2 .. {} end) return e`,
	`local ok, e = pcall(function() local ok2, e2 = pcall(function() local u; return u.v end); error(e2, 0) end) return e`,
	`local ok, e = pcall(function() local ok2 = pcall(error, 'x'); local w; return w.z end) return e`,
	`pcall(error, 'x'); local t; return t.after`,
	`local r = {}; for i = 1, 3 do local ok, e = pcall(function() local q = i; return q.x end); r[i] = e end; return r`,
	`local t = {}; local ok, e = pcall(function() return t.a.b end) return e`,
	`local ok, e = pcall(function() return KEYS.x.y end) return e`,
	`local ok, e = pcall(function() local s = 'x'; return s:nope() end) return e`,
	`local ok, e = pcall(function() return ('x'):rep(2):nope() end) return e`,
	`local ok, e = pcall(function() for i = 1, 'x' do end end) return e`,
	`local ok, e = pcall(function() return #nil end) return e`,
	`local ok, e = pcall(function() local n; return #n end) return e`,
	`local ok, e = pcall(function() return {} < {} end) return e`,
	`local ok, e = pcall(function() local t = {} t.x.y = 1 end) return e`,
	`local ok, e = pcall(function() return string.gsub('x', 'x', function() local z; return z.y end) end) return e`,
	`local ok, e = pcall(function() table.sort({1, 2}, function(a, b) return a.x end) end) return e`,
	`local function f() return (f()) end; local ok, e = pcall(f) return e`,
	`local function f() return 1 + f() end; local ok, e = pcall(f) return e`,
	`local fs = {}; pcall(error, 'x'); pcall(function() local y = 5; fs[1] = function() return y end; error('e') end); local a, b, c, d, e = 10, 20, 30, 40, 50; return fs[1]()`,
	`table.sort({1, 2}, function(a, b) return a.x end)`,
	`table.sort({{}, {}})`,
	`table.sort({{}, 1})`,
	`return select(2, pcall(table.sort, {{}, {}}))`,
	`local ok, e = pcall(table.sort, {3, 1, 2}, function(a, b) return a + {} end) return e`,
	`local t = {3, 1, 2}; table.sort(t, function(a, b) return a < b end); return t`,
	`table.sort({1, 2}, function(a, b) local s = 'x'; return s:nope() end)`,
	`local co = coroutine.wrap(function() local t; return t.x end) local ok, e = pcall(co) return e`,
}

func TestScriptingErrorNamesCaught(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range namesCaughtCorpus {
		p.Same(t, "EVAL", body, "0")
	}
}

// moduleHead makes qlessd run a script the way it runs qless.lua: the
// chunk's head runs once per state and each call runs the rest as a
// function of its own, to which the head's locals are upvalues and the
// sandbox globals it reads are locals. Lua names them as the source has
// them: locals and globals.
const moduleHead = `local M = {ns = 'm:'}
local N = {ns = M.ns .. 'n:'}
N.__index = N
M.config = {}
M.config.defaults = {a = 1, b = 'x'}
function M.get(k) return M.config.defaults[k].x end
function N:name() return self.ns.y.z end
function N.new() return setmetatable({}, N) end
local function helper(x) return x .. {} end
M.helper = helper
function M.bad() return redis() end
`

func TestScriptingErrorNamesCachedChunk(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, tail := range []string{
		"return M.get('a')", "return M + 1", "return M.nope.x", "return N.new():name()",
		"return helper('a')", "return redis + 1", "return 'x' .. N .. 'y'", "return M.bad()",
		"return table.concat({}) .. #M", "local table = 5 return table.x", "return M.config.defaults.c.d",
		"M.config()", "local cfg = M.config return cfg.x.y", "return #redis.call('get', 'k')",
		"return _G()", "return _G + 1", "return cjson.x.y", "return bit.nope()",
	} {
		body := moduleHead + tail
		// twice: the head is built on the first call and kept for the next
		p.Same(t, "EVAL", body, "0")
		p.Same(t, "EVAL", body, "0")
	}
}

// moduleScript has locals in and after blocks of every kind, in functions
// as long as qless.lua's; ARGV[1] picks the line that fails.
const moduleScript = `local M = {}
local cfg = {retries = 3, name = 'q'}
local function helper(a, b)
  local sum = 0
  for i = 1, #a do
    local v = a[i]
    if type(v) == 'number' then
      sum = sum + v
    else
      local s = tostring(v)
      sum = sum + #s
    end
  end
  local after = b
  return sum, after
end
function M.run(which, arg)
  local results = {}
  local n, extra = helper({1, 'ab', 3}, arg)
  if which == 'a' then
    local t
    return t.x
  elseif which == 'b' then
    for k, v in pairs({x = 1}) do
      local w = v
      results[k] = w
    end
    local missing
    return missing .. 'x'
  elseif which == 'c' then
    local i = 0
    while i < 2 do
      local inner = {i}
      i = i + 1
    end
    local after = nil
    return #after
  elseif which == 'd' then
    do
      local scoped = 1
    end
    local q = {}
    return q.a.b
  elseif which == 'e' then
    return extra.field
  elseif which == 'f' then
    return cfg.missing.deep
  elseif which == 'g' then
    local job = {data = {}}
    return job.data.tags[1]
  elseif which == 'h' then
    repeat
      local r = 1
    until r > 0
    local last = {}
    return last + 1
  elseif which == 'i' then
    local list = {1, 2}
    for idx = 1, #list do
      local item = list[idx]
      if idx == 2 then
        return item.name
      end
    end
  elseif which == 'j' then
    local fn = M.nope
    return fn()
  elseif which == 'k' then
    return M:nope()
  elseif which == 'l' then
    local function inner()
      return results.x.y
    end
    return inner()
  elseif which == 'm' then
    local a, b, c = 1, 2
    return a + c
  elseif which == 'n' then
    local s = 'str'
    for i = 1, 2 do
      local t = i
    end
    return s.x.y
  end
  return n
end
return M.run(ARGV[1], ARGV[2])
`

func TestScriptingErrorNamesModule(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	// as written, and behind a head of constants that makes qlessd cache
	// the chunk's head
	head := ""
	for i := 0; i < 8; i++ {
		head += fmt.Sprintf("local K%d = 'k'\n", i)
	}
	for _, body := range []string{moduleScript, head + moduleScript} {
		for _, which := range strings.Split("abcdefghijklmnz", "") {
			p.Same(t, "EVAL", body, "0", which)
		}
	}
}
