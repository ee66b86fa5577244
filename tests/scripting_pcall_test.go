package tests

import "testing"

// pcallCorpus checks what an error caught by pcall or xpcall leaves
// behind: the upvalues of the frames it unwound and of the frames it did
// not, error objects and positions, return values, nesting limits; and
// coroutines around protected calls. Sent as EVAL <body> 0 to qlessd and
// redis-server 7.0, replies compared byte for byte.
var pcallCorpus = []string{
	// an upvalue of the script's own frame stays shared after caught errors
	"local x=1; local function inc() x=x+1 end; pcall(error,'a'); pcall(error,'b'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; pcall(error,'a'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; inc(); pcall(error,'a'); pcall(error,'b'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; for i = 1, 50 do pcall(error, i) inc() end return x",
	"local x=1; local function inc() x=x+1 end; pcall(error,'a'); x = 5; pcall(error,'b'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; pcall(error,{1}); pcall(error,{err='e'}); inc(); return x",
	"local x=1; local function inc() x=x+1 end; pcall(function() pcall(error,'a') pcall(error,'b') inc() error('c') end) inc(); return x",
	"local x=1; local function inc() x=x+1 end; pcall(function() error('a') end); pcall(function() local y = nil + 1 end); inc(); return x",
	"local x=1; local function inc() x=x+1 end; xpcall(function() error('a') end, function(e) return e end); xpcall(function() error('b') end, function(e) inc() return e end); inc(); return x",
	"local x=1; local function inc() x=x+1 end; pcall(redis.call, 'nosuch'); pcall(function() redis.call('nosuch') end); inc(); return x",
	"local x=1; local function inc() x=x+1 end; redis.pcall('nosuch'); pcall(redis.pcall, 'nosuch'); pcall(error, 'z'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; table.sort({3, 1, 2}, function(a, b) return a < b end); pcall(error,'a'); pcall(error,'b'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; pcall(table.sort, {3, 1}, function() error('cmp') end); pcall(error,'b'); inc(); return x",
	"local x=1; local function inc() x=x+1 end; local co = coroutine.wrap(function() error('in co') end); pcall(co); pcall(error,'b'); inc(); return x",
	// upvalues open at several levels of a call chain that errors deep down
	`local a = 1
local function outer()
  local b = 10
  local function middle()
    local c = 100
    local function inner() a = a + 1 b = b + 1 c = c + 1 error('deep') end
    local ok, e = pcall(inner)
    local ok2, e2 = pcall(inner)
    c = c + 1
    return c, e2
  end
  local c, e = middle()
  pcall(error, 'x')
  b = b + 1
  return b, c, e
end
local b, c, e = outer()
pcall(error, 'y')
return {a, b, c, e}`,
	`local get, set
local function make()
  local v = 0
  get = function() return v end
  set = function(n) v = n end
  set(1)
  pcall(error, 'p')
  pcall(error, 'q')
  set(v + 1)
  return v
end
local r = make()
set(get() + 10)
return {r, get()}`,
	// closures made by a function that then errors keep their values
	"local f; pcall(function() local y = 10; f = function() return y end; error('x') end); local function g() local p,q,r,s,t,u = 1,2,3,4,5,6 return p end g(); return f()",
	"local f; pcall(function() local y = 10; f = function() return y end; error('x') end); pcall(function() local p,q,r,s,t,u = 1,2,3,4,5,6 error('z') end); return f()",
	"local g, s; pcall(function() local y = 1; g = function() return y end; s = function(v) y = v end; error('x') end); s(7); pcall(error, 1); return g()",
	"local fs = {} for i = 1, 3 do pcall(function() local v = i * 10 fs[i] = function() v = v + 1 return v end error('e') end) end return {fs[1](), fs[2](), fs[3](), fs[1]()}",
	"local f; xpcall(function() local y = 'kept'; f = function() return y end; error('x') end, function(e) local a, b, c = 1, 2, 3 return e end); return f()",
	// return values
	"return {pcall(function() return 1, 2, 3 end)}", "return select('#', pcall(function() return 1, nil, 3, nil end))",
	"return {pcall(function(...) return select('#', ...), ... end, 'a', nil, 'c')}", "return select('#', pcall(function() end))",
	"return {xpcall(function() return 1, 2, 3 end, function(e) return e end)}",
	"return {pcall(pcall, error, 'e')}", "return {pcall(pcall, pcall, error, 'e')}", "return {pcall(unpack, {1, 2, 3})}",
	"local t = {} for i = 1, 300 do t[i] = i end return select('#', pcall(unpack, t))",
	"return {pcall(redis.call, 'set', 'pk', 'v')}", "return {pcall(redis.call, 'get', 'pk')}",
	"return {pcall(function() local x = redis.call('set','a','b') return x, redis.call('get','a') end)}",
	// error objects
	"return {pcall(error, 'msg')}", "return {pcall(error, 'msg', 0)}", "return {pcall(error, 'msg', 2)}",
	"return {pcall(function() error('msg') end)}", "return {pcall(function() error('msg', 2) end)}",
	"return {pcall(function() error('msg', 3) end)}", "local function f() error('x', 3) end return {pcall(function() f() end)}",
	"local function f() error('x', 2) end return {pcall(function() f() end)}", "return {pcall(function() pcall(error) error('x', 4) end)}",
	"return select('#', pcall(error, {1}))", "local r = {pcall(error, {1})} return {type(r[2]), r[2][1], type(r[3])}",
	"local r = {pcall(error, {err=5})} return {type(r[2]), r[2], select('#', pcall(error, {err=5}))}",
	"local r = {pcall(error, {err=true})} return {type(r[2]), type(r[3]), select('#', pcall(error, {err=true}))}",
	"local r = {pcall(error, {err={}})} return {type(r[2]), type(r[3])}",
	"local r = {pcall(error, setmetatable({}, {__index=function() return 'meta' end}))} return {type(r[2]), tostring(r[2])}",
	"return {pcall(error, setmetatable({}, {__index=function() error('in index') end}))}",
	"return {pcall(error, {err='text'})}", "return {pcall(error, redis.error_reply('MY err'))}",
	"return select('#', pcall(error))", "return {select('#', pcall(error, nil)), select('#', pcall(error, true)), select('#', pcall(error, 12))}",
	"return {pcall(error, 12)}", "return {pcall(error, 1.5)}", "local ok, e = pcall(error, true) return type(e)",
	"return {pcall(redis.call, 'nosuch')}", "return {pcall(redis.pcall, 'nosuch')}", "local ok, e = pcall(redis.pcall, 'nosuch') return type(e)",
	"return {pcall(function() return redis.call('nosuch') end)}", "return {pcall(function() return redis.call('get') end)}",
	"return {pcall(function() return redis.call('set', 'a', {}) end)}",
	"return {xpcall(function() return redis.call('nosuch') end, function(e) return type(e) .. ':' .. tostring(e.err) end)}",
	"return {pcall(1)}", "return {pcall({})}", "return {pcall()}", "return {pcall(pcall)}",
	"local function f(p, q, r) return pcall() end return {f(1, 2, 3)}", "return {coroutine.resume(coroutine.create(function() local s = 'str' return pcall() end))}", "return {pcall(setmetatable({}, {__call = function(self, a) return 'called', a end}), 'x')}",
	"return {pcall(function() local t = nil return t.x end)}", "return {pcall(function() return 1 + {} end)}",
	"return {pcall(function() undefinedfn() end)}", "return {pcall(loadstring('local x = nil return x.y'))}",
	"return {pcall(loadstring('error(\"in chunk\", 2)'))}", "return {pcall(function() return loadstring('error(\"in chunk\", 2)')() end)}",
	"return select('#', pcall(function(...) return ... end, unpack({}, 1, 7000)))",
	"local t = setmetatable({}, {__index = function(t, k) error('idx ' .. k, 2) end}) return {pcall(function() return t.foo end)}",
	"local t = setmetatable({}, {__add = function(a, b) error('add', 2) end}) return {pcall(function() return t + 1 end)}",
	"local t = setmetatable({}, {__tostring = function() error('ts') end}) return {pcall(tostring, t)}",
	"return {pcall(string.gsub, 'abc', '%w', function(c) error('cb ' .. c) end)}", "return {pcall(string.gsub, 'abc', '%w', function(c) error('cb ' .. c, 2) end)}",
	"local ok, e = pcall(function() local up = nil return function() return up.x end end) local ok2, e2 = pcall(e) return {ok2, e2}",
	"return {pcall(error, 'x', 1.5)}", "return {pcall(error, 'x', 'a')}",
	"local function lvl(n) error('L', n) end local r = {} for n = 1, 5 do local ok, e = pcall(function() local function a() lvl(n) end a() end) r[n] = e end return r",
	"local r = {} for n = 1, 5 do local ok, e = pcall(error, 'L', n) r[n] = e end return r",
	"local r = {} for n = 1, 6 do local ok, a, e = pcall(function() return pcall(function() error('L', n) end) end) r[n] = tostring(e) end return r",
	// errors Go functions called straight from pcall raise: no position, no name
	"return {pcall(string.rep)}", "return {pcall(math.floor, 'x')}", "return {pcall(string.format, '%d', 'x')}",
	"return {pcall(table.sort, {{}, {}})}", "return {pcall(table.concat, {{}})}", "return {pcall(tonumber)}",
	"return {pcall(error, ' x')}", "return {pcall(assert, false, ' x')}", "return {pcall(assert, false)}", "return {pcall(assert, nil, 12)}",
	"return {pcall(assert)}", "return assert(nil, 12)", "return assert(false, {})", "return {pcall(assert, false, 'a%sb')}", "return {pcall(error, 12, 0)}", "return {pcall(function() error(12, 0) end)}",
	"return {pcall(function() coroutine.wrap(function() error(5, 0) end)() end)}", "return {pcall(function() coroutine.wrap(function() error('w') end)() end)}",
	"coroutine.wrap(function() error('w') end)()", "local t = {2, 1} return {pcall(table.sort, t, coroutine.wrap(function() error('w') end))}",
	"local t = {2, 1} return {pcall(function() table.sort(t, coroutine.wrap(function() error('w') end)) end)}",
	"return {pcall(function() return string.rep() end)}", "return {pcall(function() return assert(false) end)}",
	"return {pcall(string.char, -1)}", "return {pcall(string.find, 'a', '[')}", "return {pcall(cjson.decode, '{')}",
	"return {pcall(cjson.encode, function() end)}", "return {pcall(string.gsub, 'abc', '%w', string.rep)}",
	// xpcall
	"return {xpcall(function() error('x') end, function(e) return 'handled: ' .. e end)}",
	"return {xpcall(function() error({err='tab'}) end, function(e) return e end)}",
	"local ok, e = xpcall(function() error({err='tab'}) end, function(e) return e end) return type(e)",
	"return {xpcall(function() error('a') end, function(e) return 1, 2 end)}",
	"return {xpcall(function() error('a') end, function(e) end)}",
	"return {xpcall(function() error('a') end, function(e) error('b') end)}",
	"local n=0 xpcall(function() error('a') end, function(e) n=n+1 error('b') end) return n",
	"local n=0 local r = {xpcall(function() error('a') end, function(e) n=n+1 if n < 3 then error('b'..n) end return 'h:'..e end)} return {n, tostring(r[1]), tostring(r[2])}",
	"local n=0 local r = {pcall(function() return xpcall(function() error('a') end, function(e) n=n+1 error('b') end) end)} return {n, tostring(r[1]), tostring(r[2]), tostring(r[3])}",
	"local seen = {} xpcall(function() error('a') end, function(e) seen[#seen+1] = e if #seen < 250 then error(#seen, 0) end return e end) return {#seen, seen[197], seen[198], seen[199], seen[200]}",
	"return {xpcall(error, 1)}", "return {xpcall(error, {})}", "return {xpcall(function() return 'fine' end, 1)}",
	"return {xpcall(1, function(e) return 'h:' .. e end)}", "return {xpcall(error, function(e) return 'h:' .. tostring(e) end)}",
	"return {xpcall()}", "return {xpcall(error)}",
	"return {xpcall(function() return pcall(error, 'in') end, function(e) return 'h' end)}",
	"return {xpcall(function() local ok, e = pcall(error, 'in') error('out:' .. e) end, function(e) return 'h:' .. e end)}",
	"return {pcall(xpcall, function() error('a') end, function(e) return 'h:' .. e end)}",
	// nesting: Lua 5.1 allows 200 nested C calls
	"local function f(n) local ok, e = pcall(f, n+1) if not ok then return n .. ':' .. tostring(e) end return e end return f(1)",
	"local function f(n) local ok, e = xpcall(function() return f(n+1) end, function(m) return m end) if not ok then return n .. ':' .. tostring(e) end return e end return f(1)",
	"local function f(n) local ok, e = pcall(f, n+1) if not ok then error(n .. ':' .. tostring(e), 0) end return e end return {pcall(f, 1)}",
	"local n = 0 local function f() n = n + 1 local co = coroutine.create(f) coroutine.resume(co) end f() return n",
	"local n = 0 local function f() n = n + 1 local co = coroutine.create(f) local ok, e = coroutine.resume(co) if not ok then error(e, 0) end end local ok, e = pcall(f) return {n, e}",
	"local n = 0 local function f() n = n + 1 coroutine.wrap(f)() end local ok, e = pcall(f) return {n, e}",
	"local function r() return 1 + r() end return {pcall(r)}",
	"return {pcall(function() local function r() return 1 + r() end return r() end)}",
	// yield across pcall, and other boundaries
	"local co = coroutine.create(function() pcall(function() coroutine.yield(1) end) return 2 end); local a,b = coroutine.resume(co); return {tostring(a), tostring(b)}",
	"local co = coroutine.create(function() local ok, e = pcall(function() coroutine.yield(1) end) return tostring(ok)..':'..tostring(e) end); local a,b = coroutine.resume(co); return {tostring(a), tostring(b)}",
	"local co = coroutine.create(function() local ok, e = pcall(coroutine.yield, 1) return tostring(ok)..':'..tostring(e) end); local a,b = coroutine.resume(co); return {tostring(a), tostring(b), coroutine.status(co)}",
	"local co = coroutine.create(function() return xpcall(function() coroutine.yield(1) end, function(e) return 'h:' .. e end) end); local r = {coroutine.resume(co)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"local co = coroutine.create(function() local t = {3,1,2} table.sort(t, function(a,b) coroutine.yield() return a<b end) return 'done' end) local r = {coroutine.resume(co)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"local co = coroutine.wrap(function() local ok, e = pcall(function() local inner = coroutine.wrap(function() coroutine.yield('i1') return 'i2' end) return inner() .. inner() end) coroutine.yield(tostring(ok) .. ':' .. e) return 'end' end) return {co(), co()}",
	"coroutine.yield(1) return 1", "return {pcall(coroutine.yield, 1)}", "return {pcall(function() coroutine.yield(1) end)}",
	// a yield under a metamethod, an iterator or a Go function is refused; a plain call's is not
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__index=function(t,k) coroutine.yield('y') return 'v' end}) return t.x end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__index=coroutine.yield}) return t.x end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() for k in function() coroutine.yield('it') return nil end do end return 'done' end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__call=function(self, a) coroutine.yield('call') return a end}) return t(5) end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__add=function(a, b) coroutine.yield('add') return 1 end}) return t + 1 end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__newindex=function(t,k,v) coroutine.yield('ni') end}) t.x = 1 return 'ok' end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local mt = {__eq=function(a, b) coroutine.yield('eq') return true end} local a, b = setmetatable({}, mt), setmetatable({}, mt) return a == b end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__concat=function(a, b) coroutine.yield('cc') return 'x' end}) return t .. 'a' end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local function g() coroutine.yield('tail') return 1 end return g() end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local function g() return coroutine.yield('tail2') end return g() end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() for i, v in ipairs({1}) do coroutine.yield('in for body') end return 1 end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local t = setmetatable({}, {__index=function(t,k) return (function() coroutine.yield('deep') end)() end}) return t.x end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() local r = {} for i = 1, 3 do r[i] = coroutine.yield(i) end return 1 end)",
	"local function run(f) local co = coroutine.create(f) local r = {coroutine.resume(co)} r[#r+1] = coroutine.status(co) for i = 1, #r do r[i] = tostring(r[i]) end return r end return run(function() return 'a' .. coroutine.yield(1.5) .. 2.5 end)",
	// coroutine status and running inside protected calls
	"local co = coroutine.create(function() return coroutine.running() == nil, pcall(function() return coroutine.status(coroutine.running()) end) end) local r = {coroutine.resume(co)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"return {pcall(function() return coroutine.running() == nil end)}",
	"local outer outer = coroutine.create(function() return pcall(function() local c = coroutine.create(function() return coroutine.status(outer) end) local ok, st = coroutine.resume(c) return st, coroutine.status(outer), coroutine.running() == outer, coroutine.status(c) end) end) local r = {coroutine.resume(outer)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"local outer outer = coroutine.create(function() return pcall(function() local c = coroutine.create(function() coroutine.yield() end) coroutine.resume(c) return coroutine.running() == outer, coroutine.resume(outer) end) end) local r = {coroutine.resume(outer)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"local a; a = coroutine.create(function() local b = coroutine.create(function() return coroutine.resume(a) end) return coroutine.resume(b) end) local r = {coroutine.resume(a)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"local a; a = coroutine.create(function() return coroutine.resume(a) end) local r = {coroutine.resume(a)} for i=1,#r do r[i]=tostring(r[i]) end return r",
	"local f f = coroutine.wrap(function() return f() end) return {pcall(f)}",
	"local co = coroutine.create(function() end) coroutine.resume(co) return {coroutine.resume(co)}",
	"local f = coroutine.wrap(function() end) f() return f()", "local f = coroutine.wrap(function() end) f() return {pcall(f)}",
	"local co = coroutine.wrap(function() error('x') end) local r = {pcall(co)} r[1]=tostring(r[1]) r[3] = tostring(coroutine.running()) return r",
	"local co = coroutine.create(function() error('x') end) local r = {coroutine.resume(co)} r[1]=tostring(r[1]) r[3] = coroutine.status(co) return r",
	"local w = coroutine.wrap(function() error('x') end) local co = coroutine.create(function() return pcall(w) end) local r = {coroutine.resume(co)} for i=1,#r do r[i]=tostring(r[i]) end r[#r+1] = coroutine.status(co) return r",
	"return {coroutine.resume(coroutine.create(coroutine.yield), 1, 2)}", "return coroutine.wrap(print)",
	"return {pcall(coroutine.create, 1)}", "return {pcall(coroutine.wrap)}", "return {pcall(coroutine.resume, coroutine.running())}",
	"return {pcall(coroutine.status)}", "return {coroutine.resume(1)}", "return coroutine.status({})",
	"local co = coroutine.create(function() return pcall(coroutine.status, coroutine.running()) end) return {coroutine.resume(co)}",
	"local x = 0 local co = coroutine.create(function() for i = 1, 3 do pcall(function() x = x + i error('e') end) coroutine.yield(x) end end) local r = {} for i = 1, 4 do local ok, v = coroutine.resume(co) r[#r+1] = tostring(ok) .. ':' .. tostring(v) end return r",
	"local co = coroutine.wrap(function() local v = 1 local f = function() v = v + 1 return v end pcall(error, 'a') coroutine.yield(f) pcall(error, 'b') return f() + v end) local f = co() f() return {co(), f()}",
	"local co = coroutine.create(function(...) local x = 0 local function inc() x = x + 1 end pcall(error, 'a') coroutine.yield(x) pcall(error, 'b') inc() return x end) local _, a = coroutine.resume(co) local _, b = coroutine.resume(co) return {a, b}",
}

func TestScriptingPcallCorpus(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range pcallCorpus {
		p.Same(t, "EVAL", body, "0")
	}
}
