package qless

import (
	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
)

// function is one function of the qless API as QLESS serves it: its
// arguments after now and what it does, for QLESS help, and the Go path
// that serves its ordinary calls (nil: the Lua library serves them all).
// The Lua library's API table (lua/api.lua) has the same names, but for
// those marked goOnly, which TestFunctionsMatchLibrary checks.
type function struct {
	name, args, doc string
	fast            fastPath
	// goOnly: Go serves every call, with serve, and the library has no
	// such function (one that waits in the server, say).
	goOnly bool
	serve  func(c *commands.Ctx, call [][]byte, e *scripts.Engine)
}

// functions is the API in QLESS help's order; set in init, as the fast
// paths refer to the table's users.
var functions []function

// goServed are the goOnly functions' servers by name (lowercase).
var goServed map[string]func(*commands.Ctx, [][]byte, *scripts.Engine)

func init() {
	functions = []function{
		{name: "put", args: "<worker> <queue> <jid> <klass> <data> <delay> [priority <n>] [tags <json>] [retries <n>] [depends <json>] [ttl <seconds>] [throttles <json>] [rates <json>]",
			doc: "Put a job in a queue, or move it there; delay > 0 schedules it.", fast: fastPut},
		{name: "requeue", args: "<worker> <queue> <jid> <klass> <data> <delay> [put's options]",
			doc: "put for a job that must exist."},
		{name: "pop", args: "<queue> <worker> <count>",
			doc: "Hand up to count jobs to a worker, locked until their heartbeat runs out.", fast: fastPop},
		{name: "bpop", args: "<worker> <count> <timeout> <queue> [<queue> ...]", goOnly: true, serve: runBPop,
			doc: "pop from the first of the queues with work; with none, wait up to timeout seconds (0: forever) for a job."},
		{name: "release", args: "<jid> <worker> [<delay>]",
			doc: "Give a running job back to its queue (after delay seconds) without spending a retry."},
		{name: "peek", args: "<queue> <count>", doc: "The jobs pop would hand out next, without popping them."},
		{name: "heartbeat", args: "<jid> <worker> [<data>]",
			doc: "Renew a running job's lock; replies its new expiry.", fast: fastHeartbeat},
		{name: "complete", args: "<jid> <worker> <queue> <data> [next <queue> [delay <seconds>] [depends <json>]]",
			doc: "Complete a running job, or move it on to the next queue.", fast: fastComplete},
		{name: "fail", args: "<jid> <worker> <group> <message> [<data>]", doc: "Fail a running job into a group."},
		{name: "retry", args: "<jid> <queue> <worker> [<delay> [<group> <message>]]",
			doc: "Give a running job back for another try; it fails once out of retries."},
		{name: "timeout", args: "<jid> [<jid> ...]", doc: "Take running jobs from their workers, back to waiting."},
		{name: "cancel", args: "<jid> [<jid> ...]", doc: "Delete jobs, unless other jobs depend on them."},
		{name: "depends", args: "<jid> on <jid> [<jid> ...] | <jid> off <jid> [<jid> ...] | <jid> off all",
			doc: "Add or remove dependencies of a job in the depends state."},
		{name: "priority", args: "<jid> <priority>", doc: "Change a job's priority."},
		{name: "log", args: "<jid> <message> [<data>]", doc: "Add an entry to a job's history."},
		{name: "get", args: "<jid>", doc: "A job as JSON; nil when there is none."},
		{name: "multiget", args: "<jid> [<jid> ...]", doc: "Jobs as a JSON array."},
		{name: "jobs", args: "complete [<offset> [<count>]] | <state> <queue> [<offset> [<count>]]",
			doc: "Jids of completed jobs, or of a queue's jobs in state running, stalled, scheduled, depends, recurring, throttled or rated (waiting, held back by a rate)."},
		{name: "length", args: "<queue>", doc: "How many jobs a queue has running, waiting and scheduled."},
		{name: "queues", args: "[<queue>]", doc: "Every queue's (or one queue's) jobs counted by state, as JSON."},
		{name: "failed", args: "[<group> [<start> [<limit>]]]", doc: "Failed jobs counted by group, or a group's jids."},
		{name: "unfail", args: "<queue> <group> [<count>]", doc: "Put up to count failed jobs of a group back in a queue."},
		{name: "workers", args: "[<worker>]", doc: "Every worker's jobs counted, or one worker's jids."},
		{name: "worker.deregister", args: "<worker> [<worker> ...]", doc: "Forget workers."},
		{name: "worker.bind", args: "<worker> <grace-seconds>", goOnly: true, serve: runBind,
			doc: "Bind a worker to this connection: its jobs go back once no connection holds it for grace seconds."},
		{name: "expire", args: "<queue> [<queue> ...]", doc: "Remove the queues' jobs whose TTL has passed (qlessd runs it every second)."},
		{name: "worker.timeout", args: "<worker>", doc: "Take every running job from a worker, as its locks expiring would."},
		{name: "stats", args: "<queue> <date>", doc: "A queue's wait and run statistics for the day of date."},
		{name: "pause", args: "<queue> [<queue> ...]", doc: "Stop pops from queues."},
		{name: "unpause", args: "<queue> [<queue> ...]", doc: "Let pops take jobs from queues again."},
		{name: "queue.forget", args: "<queue> [<queue> ...]", doc: "Drop queues from the list of queues."},
		{name: "queue.capacity.set", args: "<queue> <max>", doc: "Refuse puts that would make a queue hold more than max jobs (0: no limit)."},
		{name: "queue.capacity.get", args: "<queue>", doc: "A queue's capacity (0: none)."},
		{name: "throttle.set", args: "<tid> <max> [<expiration>]", doc: "Let at most max jobs hold throttle tid at once (0: no limit)."},
		{name: "throttle.get", args: "<tid>", doc: "A throttle as JSON."},
		{name: "throttle.delete", args: "<tid>", doc: "Remove a throttle; its waiting jobs go back to work."},
		{name: "throttle.locks", args: "<tid>", doc: "The jids holding the throttle."},
		{name: "throttle.pending", args: "<tid>", doc: "The jids waiting for the throttle, first in line first."},
		{name: "throttle.ttl", args: "<tid>", doc: "Seconds until the throttle expires (-1: never, -2: none)."},
		{name: "throttle.release", args: "<tid> <jid> [<jid> ...]", doc: "Take jobs' locks on the throttle away."},
		{name: "queue.throttle.set", args: "<queue> <max>", doc: "The queue's own throttle: at most max of its jobs running."},
		{name: "queue.throttle.get", args: "<queue>", doc: "The queue's own throttle as JSON."},
		{name: "rate.set", args: "<name> <count> <seconds>",
			doc: "Let at most count jobs under rate name start in any seconds (a sliding window); ql:q:<queue> names a queue's own rate."},
		{name: "rate.get", args: "<name>", doc: "A rate as JSON: count, seconds and the starts used in the window ending now."},
		{name: "rate.delete", args: "<name>", doc: "Remove a rate and its recorded starts."},
		{name: "track", args: "[track <jid> | untrack <jid>]", doc: "Tracked jobs, or start or stop tracking a job."},
		{name: "tag", args: "add <jid> <tag> ... | remove <jid> <tag> ... | get <tag> [<offset> [<count>]] | top [<offset> [<count>]]",
			doc: "Tag or untag a job, list a tag's jids, or the most used tags."},
		{name: "recur", args: "<queue> <jid> <klass> <data> interval <seconds> <offset> | cron <expression> <timezone> [priority <n>] [tags <json>] [retries <n>] [backlog <n>] [throttles <json>] [rates <json>]",
			doc: "Add or replace a recurring job, which puts a job every interval or at each run of a five-field cron expression (or @hourly, @daily, ...) in an IANA timezone, with the throttles and rates given."},
		{name: "recur.get", args: "<jid>", doc: "A recurring job as JSON; one on cron shows cron, timezone and next (its next run)."},
		{name: "recur.update", args: "<jid> [priority|interval|retries|data|klass|queue|backlog <value>] ...",
			doc: "Change a recurring job."},
		{name: "recur.tag", args: "<jid> <tag> [<tag> ...]", doc: "Tag a recurring job."},
		{name: "recur.untag", args: "<jid> <tag> [<tag> ...]", doc: "Untag a recurring job."},
		{name: "unrecur", args: "<jid>", doc: "Remove a recurring job."},
		{name: "recur.pause", args: "<jid>", doc: "Stop a recurring job spawning jobs, keeping it (its next run moved 10^12 seconds on)."},
		{name: "recur.resume", args: "<jid>", doc: "Let a paused recurring job spawn again, from the next run its schedule still has to come."},
		{name: "recur.run", args: "<jid>", doc: "Spawn one job of a recurring job now, leaving its schedule alone; replies the job's jid."},
		{name: "config.get", args: "[<option>]", doc: "One setting, or all of them as JSON."},
		{name: "config.set", args: "<option> <value>", doc: "Change a setting (heartbeat, max-job-history, ...)."},
		{name: "config.unset", args: "<option>", doc: "Set a setting back to its default."},
	}
	fastPaths = map[string]fastPath{}
	goServed = map[string]func(*commands.Ctx, [][]byte, *scripts.Engine){}
	for _, f := range functions {
		if f.fast != nil {
			fastPaths[f.name] = f.fast
		}
		if f.serve != nil {
			goServed[f.name] = f.serve
		}
	}
}

// writeHelp replies QLESS help as Redis replies a command's HELP: an array
// of status lines, each function's synopsis followed by what it does.
func writeHelp(w resp.Writer) {
	w.WriteArray(2*len(functions) + 3)
	w.WriteStatus(`QLESS <function> <now> [<arg> ...]. <now> is unix seconds, or "now" for the server's clock. Functions are:`)
	for _, f := range functions {
		w.WriteStatus(f.name + " " + f.args)
		w.WriteStatus("    " + f.doc)
	}
	w.WriteStatus("HELP")
	w.WriteStatus("    Prints this help.")
}

// isHelp reports whether a QLESS call asks for help: `QLESS help`, in any
// case; no function has that name.
func isHelp(call [][]byte) bool {
	return len(call) == 1 && commands.EqualFold(call[0], "help")
}
