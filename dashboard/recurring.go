package dashboard

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// recurPaused is how far qlessd's recur.pause moves a recurring job's next
// run (qless/lua/recurring.lua): a score this high in the queue's -recur
// set is a paused job, and the score less it the run it had coming.
const recurPaused = 1e12

// recurActionFns are the recurring-job actions and the QLESS functions
// each runs (actionFns holds the job actions).
var recurActionFns = map[string][]string{
	"recur-update": {"recur.update"}, "recur-pause": {"recur.pause"}, "recur-resume": {"recur.resume"},
	"recur-run": {"recur.run"}, "recur-delete": {"unrecur"},
}

func init() {
	for name, fns := range recurActionFns {
		actionFns[name] = fns
	}
}

// recurRoutes are the recurring-job actions, checked as every action is
// (serveAction: admin mode, origin, CSRF token, the user's ACL).
func (d *Dashboard) recurRoutes(m *http.ServeMux) {
	for path, a := range map[string]struct {
		name string
		act  action
	}{
		"update": {"recur-update", d.recurUpdate},
		"pause":  {"recur-pause", d.recurCall("recur.pause", "paused the recurring job: it spawns nothing until resumed")},
		"resume": {"recur-resume", d.recurCall("recur.resume", "resumed the recurring job")},
		"run":    {"recur-run", d.recurRun},
		"delete": {"recur-delete", d.recurCall("unrecur", "deleted the recurring job")},
	} {
		m.HandleFunc("POST /api/recurring/{jid}/"+path, d.serveAction(a.name, a.act))
	}
}

// needRecurring reads a recurring job, failing with a clear message when
// there is none.
func (d *Dashboard) needRecurring(ctx context.Context, jid string) (Recurring, error) {
	rec, err := d.recurring(ctx, []string{jid})
	if err == nil && len(rec) == 0 {
		err = badRequest{"no recurring job " + quote(jid)}
	}
	if err != nil {
		return Recurring{}, err
	}
	return rec[0], nil
}

func (d *Dashboard) recurCall(fn, done string) action {
	return func(ctx context.Context, r *http.Request) (string, error) {
		jid := r.PathValue("jid")
		if _, err := d.needRecurring(ctx, jid); err != nil {
			return "", err
		}
		_, err := d.c.call(ctx, fn, jid)
		return done, err
	}
}

func (d *Dashboard) recurRun(ctx context.Context, r *http.Request) (string, error) {
	jid := r.PathValue("jid")
	if _, err := d.needRecurring(ctx, jid); err != nil {
		return "", err
	}
	child, err := d.c.call(ctx, "recur.run", jid)
	return "spawned job " + child, err
}

// recurUpdate changes what the form gives of interval, priority and data,
// in one recur.update (qless checks them all before changing any).
func (d *Dashboard) recurUpdate(ctx context.Context, r *http.Request) (string, error) {
	args, said, err := recurUpdateArgs(r)
	if err != nil {
		return "", err
	}
	jid := r.PathValue("jid")
	if _, err := d.needRecurring(ctx, jid); err != nil {
		return "", err
	}
	if _, err := d.c.call(ctx, "recur.update", append([]any{jid}, args...)...); err != nil {
		return "", err
	}
	return "set " + strings.Join(said, ", "), nil
}

// recurUpdateArgs reads the form's non-empty fields into recur.update's
// arguments, and says what they set.
func recurUpdateArgs(r *http.Request) ([]any, []string, error) {
	var args []any
	var said []string
	if s := strings.TrimSpace(r.PostFormValue("interval")); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, nil, badRequest{"interval must be a number of seconds above 0, not " + quote(s)}
		}
		args, said = append(args, "interval", s), append(said, "the interval to "+s+"s")
	}
	if s := strings.TrimSpace(r.PostFormValue("priority")); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, badRequest{"priority must be a number, not " + quote(s)}
		}
		args, said = append(args, "priority", s), append(said, "the priority to "+s)
	}
	if s := strings.TrimSpace(r.PostFormValue("data")); s != "" {
		if !json.Valid([]byte(s)) {
			return nil, nil, badRequest{"data must be JSON"}
		}
		args, said = append(args, "data", s), append(said, "the data")
	}
	if len(args) == 0 {
		return nil, nil, badRequest{"give an interval, a priority or data to change"}
	}
	return args, said, nil
}

// schedule fills in each recurring job's next run and whether it is
// paused, from its score in its queue's -recur set (recur.get has
// neither).
func (d *Dashboard) schedule(ctx context.Context, recs []Recurring) {
	if len(recs) == 0 {
		return
	}
	pipe := d.c.rdb.Pipeline()
	for _, rec := range recs {
		pipe.ZScore(ctx, "ql:q:"+rec.Queue+"-recur", rec.JID)
	}
	cmds, _ := pipe.Exec(ctx)
	for i, cmd := range cmds {
		if i >= len(recs) {
			break
		}
		fc, ok := cmd.(*redis.FloatCmd)
		if !ok || fc.Err() != nil {
			continue
		}
		score := fc.Val()
		if score >= recurPaused {
			recs[i].Paused, score = true, score-recurPaused
		}
		recs[i].NextRun = score
	}
}
