package commands

import "strings"

// cmdCommand is COMMAND and its subcommands COUNT, LIST, INFO, DOCS,
// GETKEYS and HELP, built from the command table.
func cmdCommand(c *Ctx, args [][]byte) {
	if len(args) == 1 {
		all := c.Table.All()
		c.W.WriteArray(len(all))
		for _, cmd := range all {
			writeCommandInfo(c, cmd)
		}
		return
	}
	sub := strings.ToLower(string(args[1]))
	arityOK := map[string]func(n int) bool{
		"count":   func(n int) bool { return n == 2 },
		"list":    func(n int) bool { return n >= 2 },
		"info":    func(n int) bool { return n >= 2 },
		"docs":    func(n int) bool { return n >= 2 },
		"getkeys": func(n int) bool { return n >= 4 },
		"help":    func(n int) bool { return n == 2 },
	}[sub]
	if arityOK == nil {
		c.Error(Errorf(ErrUnknownSub, string(args[1]), "COMMAND"))
		return
	}
	if !arityOK(len(args)) {
		c.Error(WrongArgs("command|" + sub))
		return
	}
	switch sub {
	case "count":
		c.W.WriteInt(int64(len(c.Table.All())))
	case "list":
		commandList(c, args[2:])
	case "info":
		if len(args) == 2 {
			all := c.Table.All()
			c.W.WriteArray(len(all))
			for _, cmd := range all {
				writeCommandInfo(c, cmd)
			}
			return
		}
		c.W.WriteArray(len(args) - 2)
		for _, name := range args[2:] {
			if cmd := c.Table.Lookup(name); cmd != nil {
				writeCommandInfo(c, cmd)
			} else {
				c.W.WriteNull()
			}
		}
	case "docs":
		commandDocs(c, args[2:])
	case "getkeys":
		commandGetKeys(c, args[2:])
	case "help":
		writeHelp(c, "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"(no subcommand)", "    Return details about all Redis commands.",
			"COUNT", "    Return the total number of commands in this Redis server.",
			"LIST", "    Return a list of all commands in this Redis server.",
			"INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
			"DOCS [<command-name> ...]", "    Return documentation details about multiple Redis commands.",
			"GETKEYS <full-command>", "    Return the keys from a full Redis command.")
	}
}

// writeCommandInfo writes one entry as Redis 7.0's COMMAND INFO: name,
// arity, flags, first key, last key, step, ACL categories, tips, key specs
// and subcommands.
func writeCommandInfo(c *Ctx, cmd *Cmd) {
	c.W.WriteArray(10)
	c.W.WriteBulkString(cmd.Name)
	c.W.WriteInt(int64(cmd.Arity))
	flags := cmd.Flags.Names()
	c.W.WriteSet(len(flags))
	for _, f := range flags {
		c.W.WriteStatus(f)
	}
	c.W.WriteInt(int64(cmd.FirstKey))
	c.W.WriteInt(int64(cmd.LastKey))
	c.W.WriteInt(int64(cmd.Step))
	cats := aclCategories(cmd)
	c.W.WriteSet(len(cats))
	for _, cat := range cats {
		c.W.WriteStatus(cat)
	}
	c.W.WriteSet(0) // tips
	c.W.WriteSet(0) // key specs
	c.W.WriteSet(0) // subcommands: none kept, which Redis 7.0 replies as an empty set
}

// commandList is COMMAND LIST [FILTERBY MODULE name | ACLCAT cat | PATTERN p].
func commandList(c *Ctx, args [][]byte) {
	filter := func(*Cmd) bool { return true }
	switch {
	case len(args) == 0:
	case len(args) == 3 && EqualFold(args[0], "filterby"):
		val := args[2]
		switch {
		case EqualFold(args[1], "module"):
			filter = func(*Cmd) bool { return false }
		case EqualFold(args[1], "aclcat"):
			want := "@" + strings.ToLower(string(val))
			filter = func(cmd *Cmd) bool {
				for _, cat := range aclCategories(cmd) {
					if cat == want {
						return true
					}
				}
				return false
			}
		case EqualFold(args[1], "pattern"):
			filter = func(cmd *Cmd) bool { return GlobMatch(val, cmd.Name, true) }
		default:
			c.Error(ErrSyntax)
			return
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range c.Table.All() {
		if filter(cmd) {
			names = append(names, cmd.Name)
		}
	}
	c.W.WriteArray(len(names))
	for _, n := range names {
		c.W.WriteBulkString(n)
	}
}

// commandDocs is COMMAND DOCS name [name ...]: a map (flat in RESP2) from
// each known command to its summary, since and group. qlessd keeps no
// argument docs, so COMMAND DOCS without names (what redis-cli asks at
// start) is refused: redis-cli then falls back to its built-in help and
// shows full argument hints for every Redis command.
func commandDocs(c *Ctx, names [][]byte) {
	if len(names) == 0 {
		c.Error(ErrDocsAll)
		return
	}
	var cmds []*Cmd
	for _, n := range names {
		if cmd := c.Table.Lookup(n); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	c.W.WriteMap(len(cmds))
	for _, cmd := range cmds {
		c.W.WriteBulkString(cmd.Name)
		c.W.WriteMap(3)
		c.W.WriteBulkString("summary")
		c.W.WriteBulkString("")
		c.W.WriteBulkString("since")
		c.W.WriteBulkString("1.0.0")
		c.W.WriteBulkString("group")
		c.W.WriteBulkString("generic")
	}
}

// commandGetKeys is COMMAND GETKEYS command [arg ...].
func commandGetKeys(c *Ctx, call [][]byte) {
	cmd := c.Table.Lookup(call[0])
	if cmd == nil {
		c.Error(ErrInvalidCommand)
		return
	}
	if cmd.FirstKey <= 0 {
		c.Error(ErrGetKeysNone)
		return
	}
	if !cmd.ArityOK(len(call)) {
		c.Error(ErrGetKeysArgs)
		return
	}
	keys := cmd.Keys(call)
	c.W.WriteArray(len(keys))
	for _, k := range keys {
		c.W.WriteBulk(k)
	}
}
