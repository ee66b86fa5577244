package commands_test

import "testing"

// MEMORY USAGE and MEMORY's argument checks.
var memoryRows = group("memory", []row{
	{"SET k v", "+OK"},
	{"MEMORY USAGE k", ":64"},
	{"MEMORY USAGE nosuch", "$-1"},
	{"MEMORY USAGE k SAMPLES 5", ":64"},
	{"MEMORY USAGE k SAMPLES -1", "-ERR syntax error"},
	{"MEMORY USAGE k FOO", "-ERR syntax error"},
	{"MEMORY USAGE", "-ERR wrong number of arguments for 'memory|usage' command"},
	{"MEMORY FOO", "-ERR unknown subcommand 'FOO'. Try MEMORY HELP."},
	{"MEMORY", "-ERR wrong number of arguments for 'memory' command"},
})

func TestMemory(t *testing.T) { runRows(t, memoryRows) }
