package commands

import "strings"

// commandCategories holds Redis 7.0's ACL categories for commands, in the
// order COMMAND INFO lists them. Commands without an entry get categories
// derived from their flags (see aclCategories); groups may add their rows.
var commandCategories = map[string]string{
	"del":          "keyspace write slow",
	"unlink":       "keyspace write fast",
	"exists":       "keyspace read fast",
	"type":         "keyspace read fast",
	"keys":         "keyspace read slow dangerous",
	"scan":         "keyspace read slow",
	"randomkey":    "keyspace read slow",
	"rename":       "keyspace write slow",
	"renamenx":     "keyspace write fast",
	"copy":         "keyspace write slow",
	"dbsize":       "keyspace read fast",
	"flushdb":      "keyspace write slow dangerous",
	"flushall":     "keyspace write slow dangerous",
	"swapdb":       "keyspace write fast dangerous",
	"touch":        "keyspace read fast",
	"move":         "keyspace write fast",
	"expire":       "keyspace write fast",
	"pexpire":      "keyspace write fast",
	"expireat":     "keyspace write fast",
	"pexpireat":    "keyspace write fast",
	"ttl":          "keyspace read fast",
	"pttl":         "keyspace read fast",
	"expiretime":   "keyspace read fast",
	"pexpiretime":  "keyspace read fast",
	"persist":      "keyspace write fast",
	"get":          "read string fast",
	"set":          "write string slow",
	"setnx":        "write string fast",
	"setex":        "write string slow",
	"psetex":       "write string slow",
	"getset":       "write string fast",
	"getdel":       "write string fast",
	"getex":        "write string fast",
	"mget":         "read string fast",
	"mset":         "write string slow",
	"msetnx":       "write string slow",
	"incr":         "write string fast",
	"decr":         "write string fast",
	"incrby":       "write string fast",
	"decrby":       "write string fast",
	"incrbyfloat":  "write string fast",
	"append":       "write string fast",
	"strlen":       "read string fast",
	"getrange":     "read string slow",
	"substr":       "read string slow",
	"setrange":     "write string slow",
	"lcs":          "read string slow",
	"setbit":       "write bitmap slow",
	"getbit":       "read bitmap fast",
	"bitcount":     "read bitmap slow",
	"bitpos":       "read bitmap slow",
	"bitop":        "write bitmap slow",
	"bitfield":     "write bitmap slow",
	"bitfield_ro":  "read bitmap fast",
	"echo":         "fast connection",
	"time":         "fast",
	"command":      "slow connection",
	"lastsave":     "admin fast dangerous",
	"shutdown":     "admin slow dangerous",
	"debug":        "admin slow dangerous",
	"role":         "admin fast dangerous",
	"raft":         "admin slow dangerous",
	"wait":         "slow connection",
	"ping":         "fast connection",
	"info":         "slow dangerous",
	"save":         "admin slow dangerous",
	"bgsave":       "admin slow dangerous",
	"bgrewriteaof": "admin slow dangerous",
}

// aclCategories returns a command's ACL categories for COMMAND INFO.
func aclCategories(cmd *Cmd) []string {
	if cats, ok := commandCategories[cmd.Name]; ok {
		var out []string
		for _, c := range strings.Fields(cats) {
			out = append(out, "@"+c)
		}
		return out
	}
	var cats []string
	if cmd.Flags&Write != 0 {
		cats = append(cats, "@write")
	}
	if cmd.Flags&ReadOnly != 0 {
		cats = append(cats, "@read")
	}
	if cmd.Flags&Admin != 0 {
		cats = append(cats, "@admin")
	}
	if cmd.Flags&Fast != 0 {
		cats = append(cats, "@fast")
	} else {
		cats = append(cats, "@slow")
	}
	if cmd.Flags&Blocking != 0 {
		cats = append(cats, "@blocking")
	}
	if cmd.Flags&Admin != 0 {
		cats = append(cats, "@dangerous")
	}
	return cats
}
