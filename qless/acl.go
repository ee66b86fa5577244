package qless

import (
	"strings"

	"github.com/qlessd/qlessd/commands"
)

// readFunctions are the functions that only read: the category
// @qless-read. Every other function, and tag and track with an action
// that changes something, is @qless-write. tag.get, tag.top and
// track.list name the reading forms of tag and track in ACL rules
// (+qless|tag.get); help is QLESS help.
var readFunctions = map[string]bool{
	"peek": true, "get": true, "multiget": true, "jobs": true, "length": true, "queues": true,
	"failed": true, "workers": true, "stats": true, "queue.capacity.get": true, "throttle.get": true,
	"throttle.locks": true, "throttle.pending": true, "throttle.ttl": true, "queue.throttle.get": true, "rate.get": true,
	"config.get": true, "recur.get": true, "tag.get": true, "tag.top": true, "track.list": true, "help": true,
}

// aclSubs are QLESS's functions as ACL rules name them, with categories.
func aclSubs() map[string]string {
	subs := map[string]string{}
	for _, f := range functions {
		subs[f.name] = aclCats(f.name)
	}
	for _, name := range []string{"tag.get", "tag.top", "track.list", "help"} {
		subs[name] = aclCats(name)
	}
	return subs
}

func aclCats(name string) string {
	if readFunctions[name] {
		return "read slow qless-read"
	}
	return "write slow qless-write"
}

// aclSub is the function a QLESS call runs, for the ACL: QLESS <function>
// <now> [<arg> ...], with tag get/top and track without an action named
// apart as they only read.
func aclSub(args [][]byte) string {
	if len(args) < 2 {
		return ""
	}
	fn := strings.ToLower(string(args[1]))
	switch {
	case fn == "tag" && len(args) > 3 && (commands.EqualFold(args[3], "get") || commands.EqualFold(args[3], "top")):
		return "tag." + strings.ToLower(string(args[3]))
	case fn == "track" && len(args) <= 3:
		return "track.list"
	}
	return fn
}
