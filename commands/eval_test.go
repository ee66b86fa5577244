package commands_test

import "testing"

// Scripting basics: EVAL's reply conversions, redis.call and pcall, errors,
// read-only scripts, SCRIPT LOAD/EXISTS/FLUSH and EVALSHA.
var evalRows = group("eval", []row{
	{`EVAL "return 1" 0`, ":1"},
	{`EVAL "return {1,'a',{2}}" 0`, `[:1 "a" [:2]]`},
	{`EVAL "return redis.call('set', KEYS[1], ARGV[1])" 1 k v`, "+OK"},
	{`EVAL "return redis.call('get', KEYS[1])" 1 k`, `"v"`},
	{`EVAL "return redis.call('get', 'nosuch')" 0`, "$-1"},
	{`EVAL "return redis.pcall('incr', KEYS[1])" 1 k`, "-ERR value is not an integer or out of range"},
	{`EVAL "return redis.call('incr', KEYS[1])" 1 k`, "-ERR value is not an integer or out of range script: 2bab3b661081db58bd2341920e0ba7cf5dc77b25, on @user_script:1."},
	{`EVAL "return {err='my error'}" 0`, "-my error"},
	{`EVAL "return redis.status_reply('FINE')" 0`, "+FINE"},
	{`EVAL "return 3.99" 0`, ":3"},
	{`EVAL "return true" 0`, ":1"},
	{`EVAL "return false" 0`, "$-1"},
	{`EVAL "return nil" 0`, "$-1"},
	{`EVAL "return 1" -1`, "-ERR Number of keys can't be negative"},
	{`EVAL "return 1" 2 a`, "-ERR Number of keys can't be greater than number of args"},
	{`EVAL "return 1" x`, "-ERR value is not an integer or out of range"},
	{`EVAL "return 1"`, "-ERR wrong number of arguments for 'eval' command"},
	{`EVAL_RO "return redis.call('get', KEYS[1])" 1 k`, `"v"`},
	{`EVAL_RO "return redis.call('set', KEYS[1], 'x')" 1 k`, "-ERR Write commands are not allowed from read-only scripts. script: ee5bed0f6963e93a14eebfb64f07c299c1b4313f, on @user_script:1."},
	{`SCRIPT LOAD "return 'loaded'"`, `"b534286061d4b9e4026607613b95c06c06015ae8"`},
	{"EVALSHA b534286061d4b9e4026607613b95c06c06015ae8 0", `"loaded"`},
	{"EVALSHA_RO b534286061d4b9e4026607613b95c06c06015ae8 0", `"loaded"`},
	{"SCRIPT EXISTS b534286061d4b9e4026607613b95c06c06015ae8 ffffffffffffffffffffffffffffffffffffffff", "[:1 :0]"},
	{"EVALSHA ffffffffffffffffffffffffffffffffffffffff 0", "-NOSCRIPT No matching script. Please use EVAL."},
	{"EVALSHA_RO ffffffffffffffffffffffffffffffffffffffff 0", "-NOSCRIPT No matching script. Please use EVAL."},
	{"SCRIPT FLUSH", "+OK"},
	{"SCRIPT EXISTS b534286061d4b9e4026607613b95c06c06015ae8", "[:0]"},
	{"SCRIPT FLUSH FOO", "-ERR SCRIPT FLUSH only support SYNC|ASYNC option"},
	{"SCRIPT FOO", "-ERR unknown subcommand 'FOO'. Try SCRIPT HELP."},
	{"SCRIPT", "-ERR wrong number of arguments for 'script' command"},
	{"EVALSHA", "-ERR wrong number of arguments for 'evalsha' command"},
})

func TestEval(t *testing.T) { runRows(t, evalRows) }
