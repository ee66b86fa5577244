package commands_test

import "testing"

// SCAN and its per-type forms: cursors, MATCH, COUNT, TYPE and their
// errors. Scans of a whole small key space or set are compared sorted (%).
var scanRows = group("scan", []row{
	{"MSET k1 a k2 b k3 c", "+OK"},
	{"RPUSH l x", ":1"},
	{"SCAN 0 COUNT 100", `%["0" ["k1" "k2" "k3" "l"]]`},
	{"SCAN 0 MATCH k* COUNT 100", `%["0" ["k1" "k2" "k3"]]`},
	{"SCAN 0 MATCH k2", `["0" ["k2"]]`},
	{"SCAN 0 TYPE list", `["0" ["l"]]`},
	{"SCAN 0 TYPE string MATCH k3 COUNT 100", `["0" ["k3"]]`},
	{"SCAN 0 TYPE nosuchtype", `["0" []]`},
	{"SCAN abc", "-ERR invalid cursor"},
	{"SCAN 0 COUNT 0", "-ERR syntax error"},
	{"SCAN 0 COUNT -1", "-ERR syntax error"},
	{"SCAN 0 FOO bar", "-ERR syntax error"},
	{"SCAN 0 MATCH", "-ERR syntax error"},
	{"SCAN 18446744073709551616", "-ERR invalid cursor"},
	{"SADD s a b c 1", ":4"},
	{"SSCAN s 0 COUNT 100", `%["0" ["1" "a" "b" "c"]]`},
	{"SSCAN s 0 MATCH a", `["0" ["a"]]`},
	{"SSCAN s 0 MATCH z*", `["0" []]`},
	{"SSCAN nosuch 0", `["0" []]`},
	{"SSCAN s abc", "-ERR invalid cursor"},
	{"SSCAN s 0 COUNT 0", "-ERR syntax error"},
	{"HSET h f1 v1 f2 v2", ":2"},
	{"HSCAN h 0", `["0" ["f1" "v1" "f2" "v2"]]`},
	{"HSCAN h 0 MATCH f2", `["0" ["f2" "v2"]]`},
	{"HSCAN nosuch 0", `["0" []]`},
	{"HSCAN h 0 NOVALUES", "-ERR syntax error"},
	{"ZADD z 1 a 2 b", ":2"},
	{"ZSCAN z 0", `["0" ["a" "1" "b" "2"]]`},
	{"ZSCAN z 0 MATCH b", `["0" ["b" "2"]]`},
	{"ZSCAN nosuch 0", `["0" []]`},
	{"SSCAN l 0", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"HSCAN l 0", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"ZSCAN l 0", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"SSCAN s", "-ERR wrong number of arguments for 'sscan' command"},
	{"SCAN", "-ERR wrong number of arguments for 'scan' command"},
})

func TestScan(t *testing.T) { runRows(t, scanRows) }
