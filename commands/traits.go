package commands

import (
	"fmt"
	"sort"
	"strings"
)

// traitRule is one thing every row's flags must agree on: a row that has
// all of if_ and none of unless must have all of then and none of not.
type traitRule struct {
	if_, unless, then, not Flags
	why                    string
}

// traitRules are the consequences of what each serving trait means to
// the server (table.go), and of Redis's flags.
var traitRules = []traitRule{
	{if_: MayWrite, then: Write, why: "a command that may write is a write that may only read"},
	{if_: SubscribedOK, then: NoTx, not: Write, why: "subscribe mode runs only connection-level commands"},
	{if_: PubSubOK, unless: MayReplicate, then: SubscribedOK,
		why: "a pubsub command that publishes nothing is one of subscribe mode's"},
	{if_: SubscribedPong, then: SubscribedOK, why: "the pong is for subscribe mode, which must let it through"},
	{if_: RunsQueued, then: RunsInMulti, why: "EXEC queued would never run"},
	{if_: RunsInMulti, then: NoScript, why: "a transaction's control has no meaning in a script"},
	{if_: Graduates, then: NoTx, why: "the connection leaves the event loop before it runs, outside the turn's transaction"},
	{if_: StandInAnswers, then: AllowBusy | NoTx, why: "the stand-in answers only commands allowed while busy, and the script holds the store"},
	{if_: ReadsOutsideTx, not: Write, why: "it only reads"},
	{if_: SkipMonitor, then: MonitorFirst, why: "Redis skips after it only what it showed before"},
	{if_: MonitorFirst, not: NoTx | Admin, why: "it runs a script in a store transaction, and monitors see it"},
	{if_: MisconfRefused, not: Write, why: "a write is refused anyway"},
	{if_: NamesScriptBySHA, then: RunsClientScript, why: "only a script call names a script"},
	{if_: RunsClientScript, then: NoScript | MonitorFirst, not: NoTx,
		why: "a script runs in a store transaction, not from a script, and monitors see it before its calls"},
	{if_: ClosesConn, then: NoAuth | SubscribedOK | RunsInMulti | StandInAnswers,
		why: "closing is served in every state of a connection"},
}

// TraitProblems lists the rows whose flags contradict the rules above,
// or whose AdminSubs are not exactly the subcommands Redis's categories
// mark admin: what a table must never hold. Tests call it on the full
// table.
func TraitProblems(cmds []*Cmd) []string {
	var out []string
	for _, cmd := range cmds {
		for _, r := range traitRules {
			if cmd.Flags&r.if_ != r.if_ || cmd.Flags&r.unless != 0 {
				continue
			}
			if miss := r.then &^ cmd.Flags; miss != 0 {
				out = append(out, fmt.Sprintf("%s: %s without %s (%s)", cmd.Name, flagList(r.if_), flagList(miss), r.why))
			}
			if bad := r.not & cmd.Flags; bad != 0 {
				out = append(out, fmt.Sprintf("%s: %s with %s (%s)", cmd.Name, flagList(r.if_), flagList(bad), r.why))
			}
		}
		if cmd.BusyOnlyWith != "" && cmd.Flags&AllowBusy == 0 {
			out = append(out, cmd.Name+": BusyOnlyWith without AllowBusy (it narrows AllowBusy)")
		}
		if cmd.ServeKey != nil && cmd.Flags&Blocking == 0 {
			out = append(out, cmd.Name+": ServeKey without Blocking (only a waiting call is served from a key)")
		}
		if len(cmd.AdminSubs) > 0 {
			out = append(out, adminSubProblems(cmd)...)
		}
	}
	return out
}

// adminSubProblems compares a row's AdminSubs with the subcommands
// Redis's ACL categories mark admin (Redis's admin flag implies them).
func adminSubProblems(cmd *Cmd) []string {
	var out []string
	listed := map[string]bool{}
	for _, sub := range cmd.AdminSubs {
		listed[sub] = true
		if r := redisACL[cmd.Name+"|"+sub]; !hasWord(r.cats, "admin") {
			out = append(out, fmt.Sprintf("%s|%s: in AdminSubs, Redis's categories are %q", cmd.Name, sub, r.cats))
		}
	}
	for name, r := range redisACL {
		sub, ok := strings.CutPrefix(name, cmd.Name+"|")
		if ok && hasWord(r.cats, "admin") && !listed[sub] {
			out = append(out, fmt.Sprintf("%s: Redis's admin subcommand %s is not in AdminSubs", cmd.Name, sub))
		}
	}
	sort.Strings(out)
	return out
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// flagList names flags as Go spells them, for TraitProblems' messages.
func flagList(f Flags) string {
	var out []string
	for i, name := range goFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return strings.Join(out, "|")
}

// goFlagNames are the flags' names in bit order.
var goFlagNames = []string{
	"Write", "ReadOnly", "NoScript", "Blocking", "Admin", "PubSubOK", "Fast", "NoTx", "Loading",
	"Stale", "NoAuth", "NoMulti", "DenyOOM", "MayReplicate", "SkipMonitor", "AllowBusy", "MayWrite",
	"SubscribedOK", "RunsInMulti", "RunsQueued", "Graduates", "ReadsOutsideTx", "StandInAnswers",
	"MonitorFirst", "MisconfRefused", "SubscribedPong", "ClosesConn", "ListedWithSub", "RunsClientScript",
	"NamesScriptBySHA",
}
