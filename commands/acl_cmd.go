package commands

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// aclSubArity is each ACL subcommand's Redis 7.0 arity (name and
// subcommand included).
var aclSubArity = map[string]int{
	"cat": -2, "deluser": -3, "dryrun": -4, "genpass": -2, "getuser": 3, "help": 2, "list": 2,
	"load": 2, "log": -2, "save": 2, "setuser": -3, "users": 2, "whoami": 2,
}

func registerACL(t *Table) {
	t.Add(&Cmd{Name: "acl", Arity: -2, Flags: NoScript | Loading | Stale | NoTx, Run: cmdACL,
		// MONITOR shows none of these, as on Redis: SETUSER carries passwords.
		AdminSubs: []string{"deluser", "dryrun", "getuser", "list", "load", "log", "save", "setuser", "users"}})
}

// cmdACL is ACL and its subcommands.
func cmdACL(c *Ctx, args [][]byte) {
	sub := strings.ToLower(string(args[1]))
	arity, ok := aclSubArity[sub]
	if !ok {
		c.Error(Errorf(ErrUnknownSub, string(args[1]), "ACL"))
		return
	}
	if arity > 0 && len(args) != arity || arity < 0 && len(args) < -arity {
		c.Error(WrongArgs("acl|" + sub))
		return
	}
	a := c.Table.ACL
	rest := args[2:]
	if (sub == "cat" || sub == "log") && len(rest) > 1 {
		c.Error("ERR unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try ACL HELP.")
		return
	}
	switch sub {
	case "setuser":
		if bytes.ContainsAny(rest[0], " \t\n\v\f\r\x00") {
			c.Error("ERR Usernames can't contain spaces or null characters")
			return
		}
		rules, open, ok := mergeSelectorArgs(byteStrings(rest[1:]))
		if !ok {
			c.Error("ERR Unmatched parenthesis in acl selector starting at '" + string(rest[1+open]) + "'.")
			return
		}
		if rule, err := a.SetUser(c.Sess, string(rest[0]), rules); err != nil {
			c.Error("ERR Error in ACL SETUSER modifier '" + rule + "': " + err.Error())
			return
		}
		c.OK()
	case "getuser":
		a.getUser(c, string(rest[0]))
	case "deluser":
		a.delUser(c, byteStrings(rest))
	case "users":
		writeBulks(c, a.names())
	case "list":
		var lines []string
		for _, n := range a.names() {
			if u := a.User(n); u != nil {
				lines = append(lines, a.describeUser(u))
			}
		}
		writeBulks(c, lines)
	case "whoami":
		name := "default"
		if u := SessionUser(c); u != nil {
			name = u.Name
		}
		c.W.WriteBulkString(name)
	case "cat":
		a.cat(c, rest)
	case "genpass":
		genPass(c, rest)
	case "dryrun":
		a.dryRun(c, rest)
	case "log":
		a.aclLogCmd(c, rest)
	case "save":
		a.saveCmd(c)
	case "load":
		a.loadCmd(c)
	case "help":
		aclHelp(c)
	}
}

func byteStrings(args [][]byte) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

func writeBulks(c *Ctx, list []string) {
	c.W.WriteArray(len(list))
	for _, s := range list {
		c.W.WriteBulkString(s)
	}
}

// getUser is ACL GETUSER's reply as Redis 7.0 shapes it.
func (a *ACL) getUser(c *Ctx, name string) {
	u := a.User(name)
	if u == nil {
		c.W.WriteNull()
		return
	}
	p := u.perms.Load()
	c.W.WriteMap(6)
	c.W.WriteBulkString("flags")
	flags := p.flagNames()
	c.W.WriteSet(len(flags))
	for _, f := range flags {
		c.W.WriteBulkString(f)
	}
	c.W.WriteBulkString("passwords")
	writeBulks(c, p.passwords)
	a.writeSelector(c, &p.aclSelector)
	c.W.WriteBulkString("selectors")
	c.W.WriteArray(len(p.selectors))
	for _, s := range p.selectors {
		c.W.WriteArray(6)
		a.writeSelector(c, s)
	}
}

// writeSelector is a selector's commands, keys and channels, as GETUSER
// shows the root permissions and each selector.
func (a *ACL) writeSelector(c *Ctx, s *aclSelector) {
	c.W.WriteBulkString("commands")
	c.W.WriteBulkString(a.describeCommands(s))
	c.W.WriteBulkString("keys")
	c.W.WriteBulkString(describeKeys(s))
	c.W.WriteBulkString("channels")
	c.W.WriteBulkString(describeChannels(s))
}

func (a *ACL) delUser(c *Ctx, names []string) {
	for _, n := range names {
		if n == "default" {
			c.Error("ERR The 'default' user cannot be removed")
			return
		}
	}
	c.W.WriteInt(int64(a.deleteUsers(c.Sess, names)))
}

// cat is ACL CAT [category].
func (a *ACL) cat(c *Ctx, args [][]byte) {
	if len(args) == 0 {
		writeBulks(c, aclCategoryNames)
		return
	}
	flag := aclCategory(string(args[0]))
	if flag == 0 {
		c.Error("ERR Unknown category '" + string(args[0]) + "'")
		return
	}
	var names []string
	for _, e := range a.uni.entries {
		if e.cats&flag != 0 {
			names = append(names, e.name)
		}
	}
	writeBulks(c, names)
}

// genPass is ACL GENPASS [bits]: random hex, bits/4 digits rounded up.
func genPass(c *Ctx, args [][]byte) {
	bits := int64(256)
	if len(args) > 0 {
		n, ok := ParseInt(args[0])
		if !ok {
			c.Error(ErrNotInt)
			return
		}
		if n <= 0 || n > 4096 {
			c.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
			return
		}
		bits = n
	}
	chars := (bits + 3) / 4
	buf := make([]byte, (chars+1)/2)
	if _, err := rand.Read(buf); err != nil {
		c.Error("ERR cannot read random bytes: " + err.Error())
		return
	}
	c.W.WriteBulkString(hex.EncodeToString(buf)[:chars])
}

// dryRun is ACL DRYRUN user command [arg ...].
func (a *ACL) dryRun(c *Ctx, args [][]byte) {
	u := a.User(string(args[0]))
	if u == nil {
		c.Error("ERR User '" + string(args[0]) + "' not found")
		return
	}
	cmd := c.Table.Lookup(args[1])
	if cmd == nil {
		c.Error("ERR Command '" + string(args[1]) + "' not found")
		return
	}
	call := args[1:]
	// Redis looks up a container's subcommand: one it does not know is
	// no command at all.
	id := a.uni.resolve(cmd, call)
	if id >= 0 && len(call) > 1 && a.uni.entries[id].subs != nil {
		c.Error("ERR Command '" + string(args[1]) + "' not found")
		return
	}
	if id >= 0 && a.uni.entries[id].parent >= 0 {
		name := a.uni.entries[id].name
		if arity, ok := redisSubArity[name]; ok && (arity > 0 && len(call) != arity || len(call) < -arity) {
			c.Error(WrongArgs(name))
			return
		}
	}
	if !cmd.ArityOK(len(call)) {
		c.Error(WrongArgs(cmd.Name))
		return
	}
	if d, ok := a.Check(u, cmd, call); !ok {
		c.W.WriteBulkString(dryRunText(d))
		return
	}
	c.OK()
}

func aclHelp(c *Ctx) {
	writeHelp(c, "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CAT [<category>]",
		"    List all commands that belong to <category>, or all command categories",
		"    when no category is specified.",
		"DELUSER <username> [<username> ...]",
		"    Delete a list of users.",
		"DRYRUN <username> <command> [<arg> ...]",
		"    Returns whether the user can execute the given command without executing the command.",
		"GETUSER <username>",
		"    Get the user's details.",
		"GENPASS [<bits>]",
		"    Generate a secure 256-bit user password. The optional `bits` argument can",
		"    be used to specify a different size.",
		"LIST",
		"    Show users details in config file format.",
		"LOAD",
		"    Reload users from the ACL file.",
		"LOG [<count> | RESET]",
		"    Show the ACL log entries.",
		"SAVE",
		"    Save the current config to the ACL file.",
		"SETUSER <username> <attribute> [<attribute> ...]",
		"    Create or modify a user with the specified attributes.",
		"USERS",
		"    List all the registered usernames.",
		"WHOAMI",
		"    Return the current connection username.")
}
