package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// apiRoutes are the JSON reads behind the pages (docs/dashboard.md).
func (d *Dashboard) apiRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/csrf", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"token": d.csrf, "admin": d.opts.Admin, "can": d.canMap()})
	})
	m.HandleFunc("GET /api/overview", d.apiOverview)
	m.HandleFunc("GET /api/queues", d.apiQueues)
	m.HandleFunc("GET /api/queues/{queue}", d.apiQueue)
	m.HandleFunc("GET /api/queues/{queue}/jobs", d.apiQueueJobs)
	m.HandleFunc("GET /api/jobs/{jid}", d.apiJob)
	m.HandleFunc("GET /api/failed", d.apiFailed)
	m.HandleFunc("GET /api/failed/{group}", d.apiFailedGroup)
	m.HandleFunc("GET /api/workers", d.apiWorkers)
	m.HandleFunc("GET /api/workers/{worker}", d.apiWorker)
	m.HandleFunc("GET /api/tags", d.apiTags)
	m.HandleFunc("GET /api/tags/{tag}", d.apiTag)
	m.HandleFunc("GET /api/tracked", d.apiTracked)
	m.HandleFunc("GET /api/completed", d.apiCompleted)
	m.HandleFunc("GET /api/config", d.apiConfig)
	m.HandleFunc("GET /api/throughput", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, d.sampler.throughput(r.URL.Query().Get("queue")))
	})
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		d.fail(w, r, http.StatusNotFound, "no such API: "+r.Method+" "+r.URL.Path)
	})
}

func (d *Dashboard) apiOverview(w http.ResponseWriter, r *http.Request) {
	b, err := d.countsJSON(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(append(b, '\n'))
}

func (d *Dashboard) apiQueues(w http.ResponseWriter, r *http.Request) {
	qs, err := d.queues(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, qs)
}

func (d *Dashboard) apiQueue(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("queue")
	q, err := d.queue(r.Context(), name)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	st, err := d.stats(r.Context(), name)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"counts": q, "stats": st, "throughput": d.sampler.throughput(name)})
}

// queueList is one page of a queue's jobs in one state, and the queue's
// counts.
type queueList struct {
	State  string
	Pager  pager
	Counts QueueCounts
	// Jobs holds the page in every state but recurring, Recurring in that
	// one: a recurring job is read with recur.get, not as a job.
	Jobs      []Job
	Recurring []Recurring
}

// queueJobs reads a page of a queue's jobs in the state the request asks
// for (?state=, waiting by default), and the queue's counts.
func (d *Dashboard) queueJobs(r *http.Request) (queueList, error) {
	l := queueList{State: r.URL.Query().Get("state")}
	if l.State == "" {
		l.State = "waiting"
	}
	if !slices.Contains(states, l.State) {
		return l, badRequest{"state must be one of " + strings.Join(states, ", ") + "; not " + quote(l.State)}
	}
	p, err := parsePage(r)
	if err != nil {
		return l, err
	}
	ctx, queue := r.Context(), r.PathValue("queue")
	if l.Counts, err = d.queue(ctx, queue); err != nil {
		return l, err
	}
	jids, err := d.stateJIDs(ctx, queue, l.State, p)
	if err != nil {
		return l, err
	}
	l.Pager = pager{page: p, Total: l.Counts.Count(l.State), Shown: len(jids), Query: url.Values{"state": {l.State}}}
	if l.State == "recurring" {
		l.Recurring, err = d.recurring(ctx, jids)
	} else if l.Jobs, err = d.c.jobs(ctx, jids); err == nil && l.State == "throttled" {
		err = d.waitingFor(ctx, l.Jobs)
	}
	return l, err
}

func (d *Dashboard) apiQueueJobs(w http.ResponseWriter, r *http.Request) {
	l, err := d.queueJobs(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	var jobs any = l.Jobs
	if l.State == "recurring" {
		jobs = l.Recurring
	}
	writeJSON(w, http.StatusOK, map[string]any{"state": l.State, "offset": l.Pager.Offset, "limit": l.Pager.Limit,
		"total": l.Pager.Total, "jobs": jobs})
}

func (d *Dashboard) apiJob(w http.ResponseWriter, r *http.Request) {
	jid := r.PathValue("jid")
	j, ok, err := d.job(r.Context(), jid)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	if ok {
		writeJSON(w, http.StatusOK, j)
		return
	}
	rec, err := d.recurring(r.Context(), []string{jid})
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	if len(rec) == 1 {
		writeJSON(w, http.StatusOK, rec[0])
		return
	}
	d.fail(w, r, http.StatusNotFound, "no job "+quote(jid))
}

func (d *Dashboard) apiFailed(w http.ResponseWriter, r *http.Request) {
	groups, total, err := d.failedGroups(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "groups": groups})
}

func (d *Dashboard) apiFailedGroup(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	total, jobs, err := d.failedJobs(r.Context(), r.PathValue("group"), p)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "offset": p.Offset, "limit": p.Limit, "jobs": jobs})
}

func (d *Dashboard) apiWorkers(w http.ResponseWriter, r *http.Request) {
	ws, err := d.workers(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ws)
}

func (d *Dashboard) apiWorker(w http.ResponseWriter, r *http.Request) {
	jobs, stalled, err := d.workerJobs(r.Context(), r.PathValue("worker"))
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": jobs, "stalled": stalled})
}

func (d *Dashboard) apiTags(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	tags, err := d.topTags(r.Context(), p)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tags)
}

func (d *Dashboard) apiTag(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	total, jobs, err := d.taggedJobs(r.Context(), r.PathValue("tag"), p)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": total, "offset": p.Offset, "limit": p.Limit, "jobs": jobs})
}

func (d *Dashboard) apiCompleted(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	jobs, err := d.completedJobs(r.Context(), p)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"offset": p.Offset, "limit": p.Limit, "jobs": jobs})
}

func (d *Dashboard) apiTracked(w http.ResponseWriter, r *http.Request) {
	jobs, expired, err := d.tracked(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"jobs": jobs, "expired": expired})
}

func (d *Dashboard) apiConfig(w http.ResponseWriter, r *http.Request) {
	cfg, err := d.config(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	m := make(map[string]string, len(cfg))
	for _, kv := range cfg {
		m[kv[0]] = kv[1]
	}
	writeJSON(w, http.StatusOK, m)
}
