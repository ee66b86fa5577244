package commands_test

import "testing"

// LCS: the subsequence, its length, match indexes and their options.
var lcsRows = group("lcs", []row{
	{"MSET key1 ohmytext key2 mynewtext", "+OK"},
	{"LCS key1 key2", `"mytext"`},
	{"LCS key1 key2 LEN", ":6"},
	{"LCS key1 key2 IDX", `["matches" [[[:4 :7] [:5 :8]] [[:2 :3] [:0 :1]]] "len" :6]`},
	{"LCS key1 key2 IDX MINMATCHLEN 4", `["matches" [[[:4 :7] [:5 :8]]] "len" :6]`},
	{"LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN", `["matches" [[[:4 :7] [:5 :8] :4]] "len" :6]`},
	{"LCS key1 key2 LEN IDX", "-ERR If you want both the length and indexes, please just use IDX."},
	{"LCS key1 nosuch", `""`},
	{"LCS nosuch1 nosuch2 LEN", ":0"},
	{"LCS key1 key2 MINMATCHLEN", "-ERR syntax error"},
	{"LCS key1 key2 FOO", "-ERR syntax error"},
	{"LCS key1 key2 IDX MINMATCHLEN -1", `["matches" [[[:4 :7] [:5 :8]] [[:2 :3] [:0 :1]]] "len" :6]`},
	{"LCS key1 key2 IDX MINMATCHLEN x", "-ERR value is not an integer or out of range"},
	{"RPUSH l a", ":1"},
	{"LCS key1 l", "-ERR The specified keys must contain string values"},
	{"LCS key1", "-ERR wrong number of arguments for 'lcs' command"},
})

func TestLCS(t *testing.T) { runRows(t, lcsRows) }
