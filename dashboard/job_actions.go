package dashboard

import (
	"context"
	"slices"
)

// stateActions are the job actions that make sense in each state (the
// job's Badge, so a stalled job is its own case); docs/dashboard.md holds
// the same table. Track and tag fit every state. A complete job keeps
// only those: canceling it would delete its record, and moving, retrying
// or reprioritising it would put it back to run again.
var stateActions = map[string][]string{
	"waiting":   {"cancel", "move", "priority", "track", "untrack", "tag", "untag"},
	"scheduled": {"cancel", "move", "priority", "track", "untrack", "tag", "untag"},
	// A move re-puts the job without its dependencies.
	"depends": {"cancel", "priority", "track", "untrack", "tag", "untag"},
	"running": {"cancel", "move", "priority", "track", "untrack", "tag", "untag"},
	"stalled": {"retry", "cancel", "move", "priority", "track", "untrack", "tag", "untag"},
	// Waiting for a throttle: a move or cancel gives up its place in line.
	"throttled": {"cancel", "move", "priority", "track", "untrack", "tag", "untag"},
	"failed":    {"retry", "cancel", "move", "priority", "track", "untrack", "tag", "untag"},
	"complete":  {"track", "untrack", "tag", "untag"},
}

// Allows reports whether action makes sense for the job in its state. A
// state the table does not know keeps what the dashboard offered before
// states were told apart: everything but retry.
func (j Job) Allows(action string) bool {
	acts, ok := stateActions[j.Badge()]
	if !ok {
		return action != "retry"
	}
	return slices.Contains(acts, action)
}

// needAllowed reads a job and refuses action when the job's state rules it
// out.
func (d *Dashboard) needAllowed(ctx context.Context, jid, action string) (Job, error) {
	j, err := d.needJob(ctx, jid)
	if err == nil && !j.Allows(action) {
		err = badRequest{"job " + jid + " is " + j.Badge() + ": " + action + " is not offered in that state"}
	}
	return j, err
}
