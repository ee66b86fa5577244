package tests

import (
	"os"
	"strings"
	"testing"
	"time"
)

// evalCorpus is sent as EVAL <body> 0 to both servers; every reply,
// error texts included, must be byte-identical.
var evalCorpus = []string{
	// Lua -> Redis conversions
	"return 1", "return -1", "return 3.99", "return -3.99", "return 0.5", "return 1e20", "return -1e300",
	"return 'hello'", "return ''", "return true", "return false", "return nil",
	"return {1,2,3,nil,5}", "return {}", "return {1,{2,{3,{'x'}}},true,false,'s'}",
	"return {err='My Error'}", "return {err=''}", "return {err='x y z'}", "return {ok='fine'}", "return {ok='a\\r\\nb'}",
	"return {1,{2,{err='E x'}},true,false,'s',{ok='fine'}}", "return {double=3.5}",
	"return {ok=1}", "return {err=1}", "return {foo='bar'}", "return {1,2,foo='bar'}",
	"return function() end", "return coroutine.create(function() end)",
	"return redis.error_reply('x')", "return redis.error_reply('-x')", "return redis.error_reply('MY bad\\r\\n')",
	"return redis.error_reply('CODE some message')", "return redis.error_reply()", "return redis.error_reply(1)",
	"return redis.status_reply('fine')", "return redis.status_reply()", "return redis.status_reply(1, 2)",
	// Redis -> Lua conversions
	"return redis.call('set', 'k', 'v')", "return redis.call('get', 'k')", "return redis.call('get', 'nokey')",
	"return type(redis.call('get', 'nokey'))", "return redis.call('exists', 'k', 'k')",
	"return type(redis.call('exists', 'k'))", "return redis.call('type', 'k')", "return redis.call('type', 'k').ok",
	"return redis.call('ping')", "return redis.call('ping', 'hi')", "return redis.call('echo', 'x')",
	"return redis.pcall('get')", "return type(redis.pcall('get'))", "return redis.pcall('get').err",
	"return redis.call('set', 'n', 1.5) .ok .. redis.call('get', 'n')",
	"redis.call('set', 'n', 0.1) return redis.call('get', 'n')", "redis.call('set', 'n', 1e20) return redis.call('get', 'n')",
	"redis.call('set', 'n', 123456789012) return redis.call('get', 'n')", "redis.call('set', 'n', -0.0) return redis.call('get', 'n')",
	"redis.call('set', 'n', 1/0) return redis.call('get', 'n')", "redis.call('set', 'n', 2^53) return redis.call('get', 'n')",
	"redis.call('set', 'n', 1e16) return redis.call('get', 'n')",
	// redis.call errors
	"return redis.call('nosuch')", "return redis.pcall('nosuch')", "return redis.call('get')", "return redis.call('get', 'a', 'b')",
	"return redis.call('eval', 'return 1', 0)", "return redis.pcall('eval', 'return 1', 0)", "return redis.call('set', 'a', {})",
	"return redis.call('set', 'a', true)", "return redis.pcall('set', 'a', nil)", "return redis.call()", "return redis.pcall()",
	"return redis.call('script', 'flush')", "return redis.call(1)", "return redis.call('GET', 'k')",
	"local ok, e = pcall(redis.call, 'nosuch') return e", "local ok, e = pcall(redis.call, 'nosuch') return e.err",
	"return pcall(redis.call, 'nosuch')",
	// errors raised by the script
	"error('boom')", "\n\nerror('on line three')", "error({err='My Err'})", "error(redis.error_reply('EC custom'))",
	"error(12)", "error(nil)", "error()", "error('x', 0)", "error('x', 2)", "return nil + 1",
	"return 1 +", "return (", "x = = 1", "return 'unfinished", "local function f() return f() + 1 end return f()",
	"return pcall(error, 'e')", "return pcall(error)",
	"local ok, e = pcall(function() error({err='inner'}) end) return e.err",
	"return xpcall(function() error('x') end, function(e) return 'handled: ' .. e end)",
	// globals protection
	"x = 1", "return y", "KEYS = {}", "function f() end", "rawset(_G, 'zz', 1) return zz", "return rawget(_G, 'zz')",
	"return type(_G)", "return _VERSION", "return type(print)", "return type(os)", "return type(io)", "return type(debug)",
	"return type(require)", "return type(loadfile)", "return type(dofile)", "return type(getfenv)", "return type(setfenv)",
	"return type(module)", "return type(package)", "return type(newproxy)", "return type(loadstring)", "return type(unpack)",
	"return type(gcinfo)", "return type(table.getn)", "return type(table.foreach)", "return type(table.foreachi)",
	"return type(table.setn)", "return type(math.mod)", "return type(string.gfind)", "return type(redis.log)",
	"return type(redis.breakpoint)", "return type(redis.debug)", "return type(redis.set_repl)",
	"local t = {} for k in pairs(string) do t[#t+1] = k end table.sort(t) return t",
	"local t = {} for k in pairs(table) do t[#t+1] = k end table.sort(t) return t",
	"local t = {} for k in pairs(math) do t[#t+1] = k end table.sort(t) return t",
	"local t = {} for k in pairs(coroutine) do t[#t+1] = k end table.sort(t) return t",
	"local t = {} for k, v in pairs(redis) do if type(v) == 'function' then t[#t+1] = k end end table.sort(t) return t",
	"local t = {} setmetatable(t, {__index = function(t, k) return k .. '!' end}) return t.x",
	"local t = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v .. '?') end}) t.a = 'b' return t.a",
	"return loadstring('return 1 + 1')()", "local f = loadstring('x') return f", "return select('#', loadstring('x'))",
	// redis.* library
	"return redis.sha1hex('abc')", "return redis.sha1hex('')", "return redis.sha1hex()", "return redis.sha1hex(12)",
	"return redis.replicate_commands()", "return redis.set_repl(redis.REPL_ALL)", "return redis.set_repl(99)",
	"return redis.set_repl()", "return redis.setresp(2)", "return redis.setresp()", "return redis.setresp(4)",
	"return redis.log(redis.LOG_WARNING, 'hello from a test', 1)", "return redis.log(99, 'hi')", "return redis.log(1)",
	"return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING, redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}",
	"return redis.breakpoint()", "return redis.debug('x')", "return redis.acl_check_cmd('get', 'a')",
	"return redis.acl_check_cmd('nosuch')",
	// Lua 5.1 numbers and strings
	"return tostring(1234567.5)", "return tostring(1e15)", "return tostring(1e100)", "return tostring(0.1)",
	"return tostring(-0.0)", "return tostring(1/3)", "return tostring(2^63)", "return tostring(100)", "return tostring(-7)",
	"return tostring(math.huge)", "return tostring(-math.huge)", "return math.huge > 1e308",
	// numerals past a double's range read as infinity, constant folding included
	"return {tostring(1e400), tostring(-1e400), tostring(1e400 > 1), tostring(2e308 / 2), tostring(1e400 - 1e400), tostring(0xffffffffffffffffff), tostring(1e-400)}",
	"return {1e400 .. '', -1e400 .. '', 'x' .. 2e308}",
	"return {tostring(tonumber('1e2')), tostring(tonumber('inf')), tostring(tonumber('-inf')), tostring(tonumber('0x10')), tostring(tonumber(' 3 '))}",
	"return {tostring(tonumber('99999999999999999999')), tostring(tonumber('1.5e300')), tostring(tonumber('.5')), tostring(tonumber('5.'))}",
	"return {tonumber('abc'), tonumber(''), tonumber('1 2'), tonumber('0x'), tonumber('1e')}",
	"return {tonumber('10', 16), tonumber('ff', 16), tonumber('zz', 36), tonumber('8', 8), tonumber(' 11 ', 2)}",
	"return type(tonumber('nan'))", "return tonumber({})",
	// A Lua string converts as the C string it holds: up to its first NUL byte.
	"return {tostring(tonumber('1\\0x')), tostring(tonumber('\\0' .. '1'))}",
	"return string.format('%d', 3.7)", "return string.format('%d', -3.7)", "return string.format('%5.2f', 3.14159)",
	"return string.format('%x', 255.9)", "return string.format('%X %o', 255, 8)", "return string.format('%5s|%-5s|', 'a', 'b')",
	"return string.format('%.3s', 'abcdef')", "return string.format('%q', 'a\\nb\"c\\\\')", "return string.format('%g', 0.1)",
	"return string.format('%g', 1e20)", "return string.format('%g', 100000)", "return string.format('%g', 1000000)",
	"return string.format('%e', 12345.678)", "return string.format('%10.4f|', -1.5)", "return string.format('%+d % d', 5, 5)",
	"return string.format('%05d', -42)", "return string.format('%s', 1.5)", "return string.format('%s %s', 1, 2.25)",
	"return string.format('%c%c', 72, 105)", "return string.format('%%')", "return string.format('%f', 1/0)",
	"return string.format('%d', 'x')", "return string.format('%z', 1)", "return string.format('%d')",
	"return string.format('%5.1f', '2.25')", "return string.format('%i', 2^31)",
	"return table.concat({1, 2.5, 'x'}, ',')", "return table.concat({}, ',')", "return table.concat({1, 2, 3}, '-', 2, 3)",
	"return table.getn({1, 2, 3})", "return #'abc'", "return string.rep('ab', 3)", "return ('x'):upper()",
	"return string.sub('hello', 2, -2)", "return string.find('hello', 'l')", "return {string.find('hello', 'l(l)')}",
	"return string.gsub('hello world', 'o', '0')", "return {string.match('key:123', '(%a+):(%d+)')}",
	"local t = {} for w in string.gmatch('a b c', '%a') do t[#t+1] = w end return t",
	"local t = {3, 1, 2} table.sort(t) return t", "local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return t",
	"local t = {1, 2} table.insert(t, 3) table.insert(t, 1, 0) return t", "local t = {1, 2, 3} return table.remove(t)",
	"return {unpack({1, 2, 3})}", "return select('#', 1, 2, 3)", "return {select(2, 'a', 'b', 'c')}",
	"local function f(...) return arg.n end return f(1, 2, 3)", "local function f(...) return #arg end return f(1, nil, 3)",
	"local n = 0 table.foreach({a=1, b=2}, function(k, v) n = n + v end) return n",
	"local s = '' table.foreachi({'a', 'b'}, function(i, v) s = s .. i .. v end) return s",
	"return math.floor(3.7)", "return math.max(1, 5, 3)", "return math.fmod(7, 3)", "return math.mod(7, 3)",
	"return tostring(math.pi)", "return tostring(math.sqrt(2))", "return math.abs(-3)",
	"return {math.random(100), math.random(100), tostring(math.random())}", "return math.random(5, 10)",
	"return math.random(0)", "math.randomseed(7) return {math.random(1000), math.random(1000)}",
	"return 10 / 4", "return 7 % 3", "return -7 % 3", "return 2 ^ 10", "return '10' + 5", "return '3' * '4'",
	"return 10 .. 20", "return 1 == 1.0", "return 'a' < 'b'", "return #{1, 2, nil, 4} >= 2",
	"local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y}",
	"return coroutine.status(coroutine.create(function() end))",
	"local t = setmetatable({}, {__tostring = function() return 'T!' end}) return tostring(t)",
	"return type(tostring({}))", "return tostring(true) .. tostring(nil)",
	"return collectgarbage('count') >= 0", "return type(gcinfo())", "return assert(1 == 1, 'x')", "return assert(false, 'assert message')",
	"local x = 'a' + 1", "return #nil", "return {1,2} < {3}", "return 1 < nil", "return nil .. 'x'", "return (nil)()",
	"return #_G > -1", "return tonumber()", "return select('#', table.remove({}))", "return table.remove({1, 2, 3}, 5)",
	"return {table.remove({1, 2, 3}, 1)}", "local t = {1, 2, 3} table.remove(t, 2) return t", "return table.remove({1, 2, 3})",
	"return type(__redis__err__handler)",
	"return loadstring('error(\"x\")')()", "return select(2, loadstring('x ='))", "return {pcall(loadstring('return y'))}",
	"return loadstring('return 1', '=mychunk')()", "return select(2, loadstring('x =', '=mychunk'))",
	"return select(2, loadstring('local a = 1\\nx ='))", "return select(2, loadstring(string.rep('a', 80) .. ' ='))",
	"return string.char(256)", "return string.char(72, 105.9)", "return string.char('65')", "return string.char({})",
	"return table.concat({1, {}}, ',')", "return table.insert({}, 1, 2, 3)", "return table.insert({})",
	"local t = {1, 2} table.insert(t, 5, 'x') return t[5]", "return table.sort({3, 'a'})",
	"local t = {3, 1} table.sort(t, function(a, b) error('cmp') end) return t",
	"return 1234567.5 .. ''", "return '' .. 1e15", "return '' .. (2^63)", "return '' .. -0.0", "return '' .. 1/0",
	"local x = 1234567.5 return 'a' .. x .. 'b' .. 2.5", "return 1 .. 2", "return 0x10 .. ''",
	"local t = setmetatable({}, {__concat = function(a, b) return 'meta' end}) return t .. 1",
	"local function f() return 1.5, 2 end return f() .. 'x'", "return {pcall(function() return 'x' .. {} end)}",
	"local n = 0 for i = 1, 3 do n = n .. i / 2 end return n",
	"return string.rep('ab', '3')", "return ('abc'):sub('2')", "return ('abc'):sub('2', '2.0')", "return ('abc'):byte('1')",
	"return math.floor('3.7')", "return math.max('10', 9)", "return math.random('5', '5')", "return {unpack({1, 2, 3}, '2')}",
	"return select('2', 'a', 'b')", "return string.find('abcabc', 'b', '3')", "return (string.gsub('aaa', 'a', 'b', '2'))",
	"return string.rep('ab', 'x')", "return math.floor('x')",
	"return string.format('%c', 0) == ''", "return string.format('%', 1)", "return string.lower('\xc4B')", "return string.upper('\xe4b')",
	"return string.format('%5.2s|', 'abc')", "return string.format('%#x %#o', 255, 8)", "return string.format('%.0f %.0f', 2.5, 3.5)",
	"return string.format('%u %x', -1, -1)", "return string.format('%d', 1e100)", "return string.format('%q', '\\0\\r\\n')",
	"return string.format('%-+5d|% 5.1f|', 3, 3.14)", "return string.format('%.20f', 0.1)", "return string.format('%s %s', 'a')",
	"local n = 0 for k, v in pairs(_G) do if k == 'redis' or k == 'string' or k == 'KEYS' then n = n + 1 end end return n",
	"return type(rawget(_G, 'redis'))", "return next(_G) ~= nil", "return type(next(_G, nil))", "return rawget(_G, 'nope')",
	"return assert(nil)", "return next({}) == nil", "return rawequal('a', 'a')", "return rawlen",
}

func TestScriptingCorpus(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range evalCorpus {
		if os.Getenv("SCRIPT_TRACE") != "" {
			t.Log(body)
		}
		p.Same(t, "EVAL", body, "0")
	}
}

func TestScriptingKeysArgv(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	body := "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}"
	p.Same(t, "EVAL", body, "2", "k1", "k2", "a1", "a2")
	p.Same(t, "EVAL", body, "0", "a1")
	p.Same(t, "EVAL", body, "1", "k1")
	p.Same(t, "EVAL", body, "3", "k1")
	p.Same(t, "EVAL", body, "-1", "k1")
	p.Same(t, "EVAL", body, "x", "k1")
	p.Same(t, "EVAL", body, "1.0", "k1")
	p.Same(t, "EVAL", body, "99999999999999999999", "k1")
	p.Same(t, "EVAL", body)
	p.Same(t, "EVAL")
	p.Same(t, "EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "user:1", "val")
	p.Same(t, "GET", "user:1")
}

// Scripts see the Redis version qlessd speaks, as HELLO and INFO give it.
func TestScriptingRedisVersion(t *testing.T) {
	t.Parallel()
	StartPair(t).Same(t, "EVAL", "return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}", "0")
}

func TestScriptingSHA(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	body := "return 'cached ' .. ARGV[1]"
	sha := p.Same(t, "SCRIPT", "LOAD", body)
	sha = strings.TrimSpace(sha[strings.Index(sha, "\n")+1:])
	p.Same(t, "EVALSHA", sha, "0", "x")
	p.Same(t, "EVALSHA", strings.ToUpper(sha), "0", "y")
	p.Same(t, "EVALSHA_RO", sha, "0", "z")
	p.Same(t, "SCRIPT", "EXISTS", sha, strings.ToUpper(sha), "0000000000000000000000000000000000000000", "short")
	p.Same(t, "EVALSHA", "0000000000000000000000000000000000000000", "0")
	p.Same(t, "EVALSHA", "abc", "0")
	p.Same(t, "EVALSHA", sha, "-1")
	p.Same(t, "FLUSHALL")
	p.Same(t, "EVALSHA", sha, "0", "after flushall")
	p.Same(t, "SCRIPT", "FLUSH")
	p.Same(t, "EVALSHA", sha, "0", "x")
	p.Same(t, "SCRIPT", "EXISTS", sha)
	p.Same(t, "EVAL", body, "0", "again")
	p.Same(t, "EVALSHA", sha, "0", "x")
	p.Same(t, "SCRIPT", "FLUSH", "ASYNC")
	p.Same(t, "SCRIPT", "FLUSH", "sync")
	p.Same(t, "SCRIPT", "FLUSH", "bad")
	p.Same(t, "SCRIPT", "FLUSH", "a", "b")
	p.Same(t, "SCRIPT", "LOAD", "return 1 +")
	p.Same(t, "SCRIPT", "LOAD")
	p.Same(t, "SCRIPT", "LOAD", "a", "b")
	p.Same(t, "SCRIPT", "EXISTS")
	p.Same(t, "SCRIPT")
	p.Same(t, "SCRIPT", "FOO")
	p.Same(t, "SCRIPT", "KILL")
	p.Same(t, "SCRIPT", "KILL", "x")
	p.Same(t, "SCRIPT", "HELP")
	p.Same(t, "SCRIPT", "DEBUG", "NO")
	p.Same(t, "SCRIPT", "DEBUG", "bad")
	p.Same(t, "SCRIPT", "DEBUG")
}

func TestScriptingReadOnly(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "SET", "k", "v")
	p.Same(t, "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k")
	p.Same(t, "EVAL_RO", "return redis.call('set', 'a', 1)", "0")
	p.Same(t, "EVAL_RO", "return redis.pcall('set', 'a', 1)", "0")
	p.Same(t, "EVAL_RO", "return redis.pcall('del', 'k')", "0")
	p.Same(t, "GET", "a")
	p.Same(t, "GET", "k")
	p.Same(t, "EVAL_RO", "return 1", "-2")
}

func TestScriptingPartialWrites(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	p.Same(t, "EVAL", "redis.call('set', 'p1', 'a') redis.call('set', 'p2', 'b') error('stop here')", "0")
	p.Same(t, "GET", "p1")
	p.Same(t, "GET", "p2")
	p.Same(t, "EVAL", "redis.call('set', 'p3', 'c') return redis.call('nosuch')", "0")
	p.Same(t, "GET", "p3")
	p.Same(t, "EVAL", "redis.call('set', 'p4', 'd') local x = nil + 1", "0")
	p.Same(t, "EXISTS", "p1", "p2", "p3", "p4")
}

// Library tables stay writable (stock qless-core defines table.extend),
// but nothing a script defines survives into the next call.
func TestScriptingNoLeaks(t *testing.T) {
	t.Parallel()
	q := DialRaw(t, StartQlessd(t, "").Addr)
	for _, c := range [][2]string{
		{"string.myfn = function() return 1 end return string.myfn()", ":1\r\n"},
		{"return type(string.myfn)", "$3\r\nnil\r\n"},
		{"string.format = nil return 1", ":1\r\n"},
		{"return string.format('%d', 5)", "$1\r\n5\r\n"},
		{"function table.extend(a) return a end return table.extend(7)", ":7\r\n"},
		{"return type(table.extend)", "$3\r\nnil\r\n"},
	} {
		if got := q.Do(t, "EVAL", c[0], "0"); got != c[1] {
			t.Errorf("%s: got %q want %q", c[0], got, c[1])
		}
	}
}

// With --lua-readonly-tables the libraries are read-only as on Redis 7.0.
func TestScriptingReadonlyTables(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "", "--lua-readonly-tables")
	p := &Pair{Q: DialRaw(t, q.Addr), R: DialRaw(t, StartRedis(t).Addr)}
	for _, body := range []string{
		"string.myfn = function() return 1 end return 1", "string.format = nil return 1",
		"function table.extend() end return 1", "return string.format('%d', 5)", "return ('x'):rep(3)",
		"rawset(string, 'x', 1) return 1", "math.pi = 3 return 1", "return redis.call('ping')",
		"redis.call = nil return 1",
	} {
		p.Same(t, "EVAL", body, "0")
	}
}

func TestScriptingBusyAndKill(t *testing.T) {
	q := StartQlessd(t, "", "--lua-time-limit", "100")
	r := StartRedis(t)
	for _, addr := range []string{q.Addr, r.Addr} {
		DialRaw(t, addr).Do(t, "CONFIG", "SET", "lua-time-limit", "100")
	}
	replies := func(addr string, body string) []string {
		runner, other := DialRaw(t, addr), DialRaw(t, addr)
		runner.Send(t, "EVAL", body, "0")
		// Wait until the script is past its time limit.
		busy := untilBusy(t, other, "GET", "x")
		kill := other.Do(t, "SCRIPT", "KILL")
		out := []string{busy, kill}
		if strings.HasPrefix(kill, "+OK") {
			out = append(out, runner.Read(t), other.Do(t, "GET", "x"))
		}
		return out
	}
	loop := "local i = 0 while true do i = i + 1 end"
	got, want := replies(q.Addr, loop), replies(r.Addr, loop)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("kill:\n  qlessd: %q\n  redis:  %q", got, want)
	}
	pc := "while true do pcall(function() local i = 0 while true do i = i + 1 end end) end"
	got, want = replies(q.Addr, pc), replies(r.Addr, pc)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("kill through pcall:\n  qlessd: %q\n  redis:  %q", got, want)
	}
	// Inside a coroutine, and after the killed coroutine hands back.
	for _, co := range []string{
		"coroutine.wrap(function() local i = 0 while true do i = i + 1 end end)()",
		"local co = coroutine.create(function() local i = 0 while true do i = i + 1 end end) coroutine.resume(co) while true do end",
	} {
		got, want = replies(q.Addr, co), replies(r.Addr, co)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("kill in a coroutine %q:\n  qlessd: %q\n  redis:  %q", co, got, want)
		}
	}
}

// A command sent together with a script that never ends gets an answer,
// whichever reaches the server first: its own reply if it ran before the
// script, else BUSY once the script is past its time limit. It must never
// wait behind the script on the store (a race that hung the command).
func TestScriptingBusyCheckRace(t *testing.T) {
	q := StartQlessd(t, "", "--lua-time-limit", "20")
	for i := 0; i < 40; i++ {
		runner, other := DialRaw(t, q.Addr), DialRaw(t, q.Addr)
		runner.Send(t, "EVAL", "while true do end", "0")
		if got := other.Do(t, "GET", "x"); got != "$-1\r\n" && !strings.HasPrefix(got, "-BUSY") {
			t.Fatalf("round %d: GET replied %q", i, got)
		}
		for {
			kill := other.Do(t, "SCRIPT", "KILL")
			if kill == "+OK\r\n" {
				break
			}
			if !strings.HasPrefix(kill, "-NOTBUSY") {
				t.Fatalf("round %d: SCRIPT KILL replied %q", i, kill)
			}
			time.Sleep(time.Millisecond)
		}
		if got := runner.Read(t); !strings.HasPrefix(got, "-ERR Script killed by user") {
			t.Fatalf("round %d: the script replied %q", i, got)
		}
	}
}

// A script that has written cannot be killed; SHUTDOWN NOSAVE is then the
// way out on Redis. Only qlessd is checked for the UNKILLABLE reply here,
// with the text Redis 7.0 uses.
func TestScriptingUnkillable(t *testing.T) {
	q := StartQlessd(t, "", "--lua-time-limit", "100")
	runner, other := DialRaw(t, q.Addr), DialRaw(t, q.Addr)
	runner.Send(t, "EVAL", "redis.call('set', 'w', 1) local t = redis.call('time')[1] + 2 while tonumber(redis.call('time')[1]) < t do end return 'done'", "0")
	busy := untilBusy(t, other, "PING")
	if busy != "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n" {
		t.Fatalf("busy reply %q", busy)
	}
	if k := other.Do(t, "SCRIPT", "KILL"); !strings.HasPrefix(k, "-UNKILLABLE Sorry the script already executed write commands against the dataset.") {
		t.Fatalf("kill reply %q", k)
	}
	if r := runner.Read(t); r != "$4\r\ndone\r\n" {
		t.Fatalf("script reply %q", r)
	}
	if g := other.Do(t, "GET", "w"); g != "$1\r\n1\r\n" {
		t.Fatalf("get after script %q", g)
	}
}

func TestScriptingShebang(t *testing.T) {
	t.Parallel()
	p := StartPair(t)
	for _, body := range []string{
		"#!lua\nreturn 1", "#!lua flags=no-writes\nreturn redis.call('set', 'a', 1)",
		"#!lua flags=no-writes\nreturn redis.pcall('set', 'a', 1)", "#!lua flags=no-writes\nreturn redis.call('get', 'a')",
		"#!lua flags=no-writes\nerror('x')", "#!lua\nerror('x')", "#!python\nreturn 1", "#!lua flags=bogus\nreturn 1",
		"#!lua flags=no-writes,allow-oom\nreturn 2", "#!lua name=x\nreturn 1", "#!lua\n\nreturn 1 +", "#!lua",
		"#!lua  flags=no-writes \nreturn 3", "#!lua flags=\nreturn 4", "#!lua\nreturn redis.call('set', 'b', 2)",
	} {
		p.Same(t, "EVAL", body, "0")
		p.Same(t, "EVAL_RO", body, "0")
		p.Same(t, "SCRIPT", "LOAD", body)
	}
	p.Same(t, "GET", "b")
}
