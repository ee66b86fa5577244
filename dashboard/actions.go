package dashboard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

const (
	// groupBatch is how many failed jobs a retry-all or cancel-all takes
	// per round, and groupRounds how many rounds at most one request runs.
	groupBatch  = 200
	groupRounds = 250
	maxTagLen   = 256
)

// action does one thing and returns a sentence saying what was done.
type action func(ctx context.Context, r *http.Request) (string, error)

// actionFns are the QLESS functions each action runs, by the name the
// pages know it by: the dashboard's user must be allowed them all.
var actionFns = map[string][]string{
	"pause": {"pause"}, "unpause": {"unpause"}, "retry": {"requeue"}, "move": {"requeue"},
	"cancel": {"cancel"}, "priority": {"priority"}, "track": {"track"}, "untrack": {"track"},
	"tag": {"tag"}, "untag": {"tag"}, "retry-group": {"requeue"}, "cancel-group": {"cancel"},
	"throttle-max": {"throttle.set"},
}

// can reports whether the dashboard may run action: admin mode, and its
// user may run the action's QLESS functions.
func (d *Dashboard) can(action string) bool {
	if !d.opts.Admin {
		return false
	}
	for _, fn := range actionFns[action] {
		if d.opts.May != nil && !d.opts.May(fn) {
			return false
		}
	}
	return true
}

// canMap is can for every action, for the pages.
func (d *Dashboard) canMap() map[string]bool {
	m := make(map[string]bool, len(actionFns))
	for a := range actionFns {
		m[a] = d.can(a)
	}
	return m
}

// actionRoutes are the POSTs that change something. A page's form posts
// them with a back field and is sent back to that page; any other caller
// gets JSON.
func (d *Dashboard) actionRoutes(m *http.ServeMux) {
	acts := map[string]struct {
		name string
		act  action
	}{
		"/api/queues/{queue}/pause":   {"pause", d.pause(true)},
		"/api/queues/{queue}/unpause": {"unpause", d.pause(false)},
		"/api/jobs/{jid}/retry":       {"retry", d.requeue(false)},
		"/api/jobs/{jid}/move":        {"move", d.requeue(true)},
		"/api/jobs/{jid}/cancel":      {"cancel", d.cancel},
		"/api/jobs/{jid}/priority":    {"priority", d.priority},
		"/api/jobs/{jid}/track":       {"track", d.track("track")},
		"/api/jobs/{jid}/untrack":     {"untrack", d.track("untrack")},
		"/api/jobs/{jid}/tag":         {"tag", d.tag("add")},
		"/api/jobs/{jid}/untag":       {"untag", d.tag("remove")},
		"/api/failed/{group}/retry":   {"retry-group", d.retryGroup},
		"/api/failed/{group}/cancel":  {"cancel-group", d.cancelGroup},
	}
	for path, a := range acts {
		m.HandleFunc("POST "+path, d.serveAction(a.name, a.act))
	}
}

func (d *Dashboard) serveAction(name string, act action) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			d.fail(w, r, http.StatusBadRequest, "could not read the form: "+err.Error())
			return
		}
		if !d.allowAction(w, r) {
			return
		}
		if !d.can(name) {
			d.fail(w, r, http.StatusForbidden, "the dashboard's user ("+d.userName()+") may not "+name+
				" (QLESS "+strings.Join(actionFns[name], ", ")+"): see its ACL rules")
			return
		}
		done, err := act(r.Context(), r)
		if err != nil {
			if to := refusedURL(r, err); to != "" {
				http.Redirect(w, r, to, http.StatusSeeOther)
				return
			}
			d.failErr(w, r, err)
			return
		}
		if back := localPath(r.PostFormValue("back")); back != "" {
			http.Redirect(w, r, withQuery(back, url.Values{"done": {done}}), http.StatusSeeOther)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"done": done})
	}
}

func (d *Dashboard) pause(on bool) action {
	return func(ctx context.Context, r *http.Request) (string, error) {
		q := r.PathValue("queue")
		if on {
			_, err := d.c.call(ctx, "pause", q)
			return "paused queue " + q, err
		}
		_, err := d.c.call(ctx, "unpause", q)
		return "unpaused queue " + q, err
	}
}

// requeue puts a job back into its queue (retry) or into the queue the
// form names (move), keeping its class, data, priority, tags and retries,
// as qless clients' requeue does.
func (d *Dashboard) requeue(move bool) action {
	return func(ctx context.Context, r *http.Request) (string, error) {
		name := "retry"
		if move {
			name = "move"
		}
		j, err := d.needAllowed(ctx, r.PathValue("jid"), name)
		if err != nil {
			return "", err
		}
		queue := j.Queue
		if move {
			queue = strings.TrimSpace(r.PostFormValue("queue"))
			if queue == "" {
				return "", badRequest{"name the queue to move the job to (field queue)"}
			}
		}
		if _, err := d.c.call(ctx, "requeue", actor, queue, j.JID, j.Klass, j.Data, 0); err != nil {
			return "", err
		}
		if move {
			return "moved the job to queue " + queue, nil
		}
		return "put the job back in queue " + queue, nil
	}
}

// needJob reads a job, failing with a clear message when there is none.
func (d *Dashboard) needJob(ctx context.Context, jid string) (Job, error) {
	j, ok, err := d.job(ctx, jid)
	if err == nil && !ok {
		err = badRequest{"no job " + quote(jid)}
	}
	return j, err
}

func (d *Dashboard) cancel(ctx context.Context, r *http.Request) (string, error) {
	jid := r.PathValue("jid")
	if _, err := d.needAllowed(ctx, jid, "cancel"); err != nil {
		return "", err
	}
	if _, err := d.c.call(ctx, "cancel", jid); err != nil {
		return "", d.withDependents(ctx, jid, err)
	}
	return "canceled job " + jid, nil
}

// withDependents adds to qless's refusal to cancel jid the jobs that
// depend on it, which the page links as the way out.
func (d *Dashboard) withDependents(ctx context.Context, jid string, err error) error {
	var reply redis.Error
	if !errors.As(err, &reply) {
		return err
	}
	j, ok, rerr := d.job(ctx, jid)
	if rerr != nil || !ok || len(j.Dependents) == 0 {
		return err
	}
	return refusal{err: err, jobs: j.Dependents}
}

func (d *Dashboard) priority(ctx context.Context, r *http.Request) (string, error) {
	s := strings.TrimSpace(r.PostFormValue("priority"))
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
		return "", badRequest{"priority must be a number, not " + quote(s)}
	}
	jid := r.PathValue("jid")
	if _, err := d.needAllowed(ctx, jid, "priority"); err != nil {
		return "", err
	}
	_, err = d.c.call(ctx, "priority", jid, s)
	return "set the priority to " + s, err
}

func (d *Dashboard) track(cmd string) action {
	return func(ctx context.Context, r *http.Request) (string, error) {
		_, err := d.c.call(ctx, "track", cmd, r.PathValue("jid"))
		return cmd + "ed the job", err
	}
}

func (d *Dashboard) tag(cmd string) action {
	return func(ctx context.Context, r *http.Request) (string, error) {
		t := strings.TrimSpace(r.PostFormValue("tag"))
		if t == "" || len(t) > maxTagLen {
			return "", badRequest{fmt.Sprintf("tag must be 1 to %d bytes, not %d", maxTagLen, len(t))}
		}
		if _, err := d.c.call(ctx, "tag", cmd, r.PathValue("jid"), t); err != nil {
			return "", err
		}
		if cmd == "add" {
			return "added tag " + t, nil
		}
		return "removed tag " + t, nil
	}
}

// groupJIDs reads the first batch of a failure group's jids.
func (d *Dashboard) groupJIDs(ctx context.Context, group string) ([]string, error) {
	var r struct {
		Jobs strList `json:"jobs"`
	}
	err := d.c.callJSON(ctx, &r, "failed", group, 0, groupBatch)
	return r.Jobs, err
}

// retryGroup puts every job of a failure group back into its own queue,
// a batch at a time (each requeue takes the job out of the group).
func (d *Dashboard) retryGroup(ctx context.Context, r *http.Request) (string, error) {
	group, done := r.PathValue("group"), 0
	for round := 0; round < groupRounds; round++ {
		jids, err := d.groupJIDs(ctx, group)
		if err != nil || len(jids) == 0 {
			return fmt.Sprintf("put %d jobs back in their queues", done), err
		}
		jobs, err := d.c.jobs(ctx, jids)
		if err != nil {
			return "", err
		}
		if len(jobs) == 0 {
			return fmt.Sprintf("put %d jobs back in their queues; the group still lists jobs that are gone", done), nil
		}
		calls := make([][]any, len(jobs))
		for i, j := range jobs {
			calls[i] = qlessArgs("requeue", actor, j.Queue, j.JID, j.Klass, j.Data, 0)
		}
		_, errs := d.c.pipeline(ctx, calls)
		for _, err := range errs {
			if err != nil {
				return "", fmt.Errorf("after putting back %d jobs: %w", done, err)
			}
			done++
		}
	}
	return fmt.Sprintf("put %d jobs back in their queues (more remain: retry again)", done), nil
}

// cancelGroup cancels every job of a failure group a batch at a time; a
// batch qless refuses (a job another depends on) is canceled job by job,
// and the jobs it still refuses stay.
func (d *Dashboard) cancelGroup(ctx context.Context, r *http.Request) (string, error) {
	group, done := r.PathValue("group"), 0
	for round := 0; round < groupRounds; round++ {
		jids, err := d.groupJIDs(ctx, group)
		if err != nil || len(jids) == 0 {
			return fmt.Sprintf("canceled %d jobs", done), err
		}
		args := make([]any, len(jids))
		for i, j := range jids {
			args[i] = j
		}
		if _, err := d.c.call(ctx, "cancel", args...); err == nil {
			done += len(jids)
			continue
		}
		n, firstErr := d.cancelEach(ctx, jids)
		done += n
		if n < len(jids) {
			return "", fmt.Errorf("canceled %d jobs, then: %w", done, firstErr)
		}
	}
	return fmt.Sprintf("canceled %d jobs (more remain: cancel again)", done), nil
}

func (d *Dashboard) cancelEach(ctx context.Context, jids []string) (int, error) {
	calls := make([][]any, len(jids))
	for i, j := range jids {
		calls[i] = qlessArgs("cancel", j)
	}
	_, errs := d.c.pipeline(ctx, calls)
	n := 0
	var first error
	for _, err := range errs {
		if err == nil {
			n++
		} else if first == nil {
			first = err
		}
	}
	return n, first
}
