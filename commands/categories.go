package commands

import "strings"

// commandCategories holds the ACL categories of the commands Redis 7.0
// lacks; Redis's own come from redisACL (acl_redistable.go), and commands
// without either get categories derived from their flags.
var commandCategories = map[string]string{
	"raft": "admin slow dangerous",
	// QLESS is a container, as CONFIG is: its functions have the
	// categories (@qless-read, @qless-write, @read, @write).
	"qless": "slow",
}

// aclCategories returns a command's ACL categories for COMMAND INFO.
func aclCategories(cmd *Cmd) []string {
	cats, ok := commandCategories[cmd.Name]
	if r, known := redisACL[cmd.Name]; known {
		cats, ok = r.cats, true
	}
	if ok {
		var out []string
		for _, c := range strings.Fields(cats) {
			out = append(out, "@"+c)
		}
		return out
	}
	return flagCategories(cmd)
}

// flagCategories derives the categories of a command Redis lacks from its
// flags.
func flagCategories(cmd *Cmd) []string {
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
