package dashboard

import (
	"net/http"
	"net/url"
	"sort"
)

// overviewRows is how many failure groups and workers the overview lists.
const overviewRows = 10

func (d *Dashboard) pageRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /{$}", d.pageOverview)
	m.HandleFunc("GET /queues/{queue}", d.pageQueue)
	m.HandleFunc("GET /jobs/{jid}", d.pageJob)
	m.HandleFunc("GET /jobs/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/jobs/"+url.PathEscape(r.URL.Query().Get("jid")), http.StatusSeeOther)
	})
	m.HandleFunc("GET /failed", d.pageFailed)
	m.HandleFunc("GET /failed/{group}", d.pageFailedGroup)
	m.HandleFunc("GET /workers", d.pageWorkers)
	m.HandleFunc("GET /workers/{worker}", d.pageWorker)
	m.HandleFunc("GET /tags", d.pageTags)
	m.HandleFunc("GET /tags/{tag}", d.pageTag)
	m.HandleFunc("GET /tracked", d.pageTracked)
	m.HandleFunc("GET /completed", d.pageCompleted)
	m.HandleFunc("GET /recurring", d.pageRecurring)
	m.HandleFunc("GET /config", d.pageConfig)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		d.fail(w, r, http.StatusNotFound, "no such page: "+r.URL.Path)
	})
}

func (d *Dashboard) pageOverview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	qs, err := d.queues(ctx)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	groups, failedTotal, err := d.failedGroups(ctx)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	ws, err := d.workers(ctx)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Jobs > ws[j].Jobs })
	var sum QueueCounts
	for _, q := range qs {
		sum.Waiting += q.Waiting
		sum.Running += q.Running
		sum.Stalled += q.Stalled
		sum.Scheduled += q.Scheduled
		sum.Depends += q.Depends
		sum.Recurring += q.Recurring
	}
	shown := atMost(ws, overviewRows)
	d.lastSeen(ctx, shown)
	d.render(w, r, http.StatusOK, "overview", "Overview", map[string]any{
		"Queues": qs, "Sum": sum, "Groups": atMost(groups, overviewRows), "GroupCount": len(groups),
		"FailedTotal": failedTotal, "Workers": shown, "WorkerCount": len(ws),
		"Throughput": d.sampler.throughput(""),
	})
}

func (d *Dashboard) pageQueue(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("queue")
	l, err := d.queueJobs(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	st, err := d.stats(r.Context(), name)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "queue", "Queue "+name, map[string]any{
		"Name": name, "Counts": l.Counts, "State": l.State, "States": states, "Pager": l.Pager, "Jobs": l.Jobs,
		"Recurring": l.Recurring, "Stats": st, "Throughput": d.sampler.throughput(name),
	})
}

func (d *Dashboard) pageJob(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	jid := r.PathValue("jid")
	j, ok, err := d.job(ctx, jid)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	if !ok {
		rec, err := d.recurring(ctx, []string{jid})
		if err != nil {
			d.failErr(w, r, err)
			return
		}
		if len(rec) == 0 {
			d.fail(w, r, http.StatusNotFound, "no job "+quote(jid)+": it never was, was canceled, or completed long enough ago to be forgotten")
			return
		}
		d.render(w, r, http.StatusOK, "recurring_job", "Recurring job "+jid, rec[0])
		return
	}
	qs, err := d.queues(ctx)
	if err == nil {
		jobs := []Job{j}
		err = d.waitingFor(ctx, jobs)
		j = jobs[0]
	}
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "job", "Job "+jid, map[string]any{"Job": j, "Queues": qs})
}

func (d *Dashboard) pageFailed(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	groups, total, err := d.failedGroups(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	from, to := min(p.Offset, len(groups)), min(p.Offset+p.Limit, len(groups))
	d.render(w, r, http.StatusOK, "failed", "Failed", map[string]any{
		"Groups": groups[from:to], "Total": total,
		"Pager": pager{page: p, Total: int64(len(groups)), Shown: to - from},
	})
}

func (d *Dashboard) pageFailedGroup(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	group := r.PathValue("group")
	total, jobs, err := d.failedJobs(r.Context(), group, p)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "failed_group", "Failed: "+group, map[string]any{
		"Group": group, "Jobs": jobs, "Pager": pager{page: p, Total: total, Shown: len(jobs)},
	})
}

func (d *Dashboard) pageWorkers(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	ws, err := d.workers(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	from, to := min(p.Offset, len(ws)), min(p.Offset+p.Limit, len(ws))
	shown := ws[from:to]
	d.lastSeen(r.Context(), shown)
	d.render(w, r, http.StatusOK, "workers", "Workers", map[string]any{
		"Workers": shown, "Pager": pager{page: p, Total: int64(len(ws)), Shown: len(shown)},
	})
}

func (d *Dashboard) pageWorker(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("worker")
	jobs, stalled, err := d.workerJobs(r.Context(), name)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	ws := []Worker{{Name: name}}
	d.lastSeen(r.Context(), ws)
	d.render(w, r, http.StatusOK, "worker", "Worker "+name, map[string]any{
		"Name": name, "Jobs": jobs, "Stalled": stalled, "LastSeen": ws[0].LastSeen,
	})
}

func (d *Dashboard) pageTags(w http.ResponseWriter, r *http.Request) {
	if t := r.URL.Query().Get("tag"); t != "" {
		http.Redirect(w, r, "/tags/"+url.PathEscape(t), http.StatusSeeOther)
		return
	}
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
	d.render(w, r, http.StatusOK, "tags", "Tags", map[string]any{
		"Tags": tags, "Pager": pager{page: p, Total: -1, Shown: len(tags)},
	})
}

func (d *Dashboard) pageTag(w http.ResponseWriter, r *http.Request) {
	p, err := parsePage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	tag := r.PathValue("tag")
	total, jobs, err := d.taggedJobs(r.Context(), tag, p)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "tag", "Tag "+tag, map[string]any{
		"Tag": tag, "Jobs": jobs, "Pager": pager{page: p, Total: total, Shown: len(jobs)},
	})
}

func (d *Dashboard) pageCompleted(w http.ResponseWriter, r *http.Request) {
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
	d.render(w, r, http.StatusOK, "completed", "Completed", map[string]any{
		"Jobs": jobs, "Pager": pager{page: p, Total: -1, Shown: len(jobs)},
	})
}

func (d *Dashboard) pageTracked(w http.ResponseWriter, r *http.Request) {
	jobs, expired, err := d.tracked(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "tracked", "Tracked", map[string]any{"Jobs": jobs, "Expired": expired})
}

// recurringRows is how many recurring jobs the recurring page shows per
// queue; the queue's own page pages through the rest.
const recurringRows = 10

func (d *Dashboard) pageRecurring(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	qs, err := d.queues(ctx)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	type queueRec struct {
		Queue QueueCounts
		Jobs  []Recurring
	}
	var out []queueRec
	for _, q := range qs {
		if q.Recurring == 0 {
			continue
		}
		jids, err := d.stateJIDs(ctx, q.Name, "recurring", page{0, recurringRows})
		var rec []Recurring
		if err == nil {
			rec, err = d.recurring(ctx, jids)
		}
		if err != nil {
			d.failErr(w, r, err)
			return
		}
		out = append(out, queueRec{q, rec})
	}
	d.render(w, r, http.StatusOK, "recurring", "Recurring", out)
}

func (d *Dashboard) pageConfig(w http.ResponseWriter, r *http.Request) {
	cfg, err := d.config(r.Context())
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "config", "Config", cfg)
}
