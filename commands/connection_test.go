package commands_test

import "testing"

// Connection commands: PING, ECHO, SELECT between databases, QUIT, and the
// argument checks of those that hand over to the connection (MULTI, AUTH,
// CLIENT...), whose behaviour tests/ checks over TCP.
var connectionRows = group("connection", []row{
	{"PING", "+PONG"},
	{"PING hello", `"hello"`},
	{"PING a b", "-ERR wrong number of arguments for 'ping' command"},
	{"ECHO hi", `"hi"`},
	{`ECHO ""`, `""`},
	{"ECHO", "-ERR wrong number of arguments for 'echo' command"},
	{"SELECT 1", "+OK"},
	{"SET k db1", "+OK"},
	{"SELECT 0", "+OK"},
	{"GET k", "$-1"},
	{"SELECT 1", "+OK"},
	{"GET k", `"db1"`},
	{"SELECT 16", "-ERR DB index is out of range"},
	{"SELECT -1", "-ERR DB index is out of range"},
	{"SELECT abc", "-ERR value is not an integer or out of range"},
	{"SELECT 0", "+OK"},
	{"SELECT", "-ERR wrong number of arguments for 'select' command"},
	{"MULTI x", "-ERR wrong number of arguments for 'multi' command"},
	{"DISCARD x", "-ERR wrong number of arguments for 'discard' command"},
	{"WATCH", "-ERR wrong number of arguments for 'watch' command"},
	{"UNWATCH x", "-ERR wrong number of arguments for 'unwatch' command"},
	{"AUTH", "-ERR wrong number of arguments for 'auth' command"},
	{"CLIENT", "-ERR wrong number of arguments for 'client' command"},
	{"RESET x", "-ERR wrong number of arguments for 'reset' command"},
	{"QUIT", "+OK"},
})

func TestConnection(t *testing.T) { runRows(t, connectionRows) }
