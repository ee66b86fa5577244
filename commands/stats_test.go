package commands_test

import "testing"

// Statistics: INFO errorstats and commandstats count what ran, and CONFIG
// RESETSTAT clears them.
var statsRows = group("stats", []row{
	{"CONFIG RESETSTAT", "+OK"},
	{"SET k v", "+OK"},
	{"GET k", `"v"`},
	{"INCR k", "-ERR value is not an integer or out of range"},
	{"LPUSH k x", "-WRONGTYPE Operation against a key holding the wrong kind of value"},
	{"INFO errorstats", `"# Errorstats\r\nerrorstat_ERR:count=1\r\nerrorstat_WRONGTYPE:count=1\r\n"`},
	{"CONFIG RESETSTAT", "+OK"},
	{"INFO errorstats", `"# Errorstats\r\n"`},
	{"GET k", `"v"`},
	{"INFO commandstats", `~"# Commandstats\\r\\ncmdstat_config\|resetstat:calls=1,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=0\\r\\ncmdstat_get:calls=1,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=0\\r\\ncmdstat_info:calls=1,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=0\\r\\n"`},
})

func TestStats(t *testing.T) { runRows(t, statsRows) }
