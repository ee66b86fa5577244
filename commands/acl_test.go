package commands_test

import "testing"

// ACL: users made, changed, asked about and removed, and the rules and
// subcommands refused, with Redis 7.0's replies. What a connection's user
// may run, AUTH as a user and ACL LOG are checked over TCP in tests/.
var aclRows = group("acl", []row{
	{"ACL WHOAMI", `"default"`},
	{"ACL USERS", `["default"]`},
	{"ACL SETUSER alice on >pw ~k* +get", "+OK"},
	{"ACL USERS", `["alice" "default"]`},
	{"ACL DRYRUN alice get k1", "+OK"},
	{"ACL DRYRUN alice get other", `"This user has no permissions to access the 'other' key"`},
	{"ACL DRYRUN alice set k1 v", `"This user has no permissions to run the 'set' command"`},
	{"ACL SETUSER alice -get", "+OK"},
	{"ACL SETUSER bob badrule", "-ERR Error in ACL SETUSER modifier 'badrule': Syntax error"},
	{"ACL USERS", `["alice" "default"]`},
	{"ACL GETUSER nobody", "$-1"},
	{"ACL DELUSER alice nobody", ":1"},
	{"ACL DELUSER default", "-ERR The 'default' user cannot be removed"},
	{"ACL USERS", `["default"]`},
	{"ACL", "-ERR wrong number of arguments for 'acl' command"},
	{"ACL NOSUCH", "-ERR unknown subcommand 'NOSUCH'. Try ACL HELP."},
})

func TestACL(t *testing.T) { runRows(t, aclRows) }
