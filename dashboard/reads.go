package dashboard

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// states are the job states a queue page lists, in the order of its tabs.
var states = []string{"waiting", "running", "stalled", "scheduled", "depends", "recurring", "throttled", "rated"}

func (d *Dashboard) queues(ctx context.Context) ([]QueueCounts, error) {
	list := []QueueCounts{}
	err := d.c.callJSON(ctx, &list, "queues")
	return list, err
}

func (d *Dashboard) queue(ctx context.Context, name string) (QueueCounts, error) {
	var q QueueCounts
	err := d.c.callJSON(ctx, &q, "queues", name)
	return q, err
}

// failedGroups lists the failure groups, largest first.
func (d *Dashboard) failedGroups(ctx context.Context) ([]FailedGroup, int64, error) {
	var m map[string]int64
	if err := d.c.callJSON(ctx, &m, "failed"); err != nil {
		return nil, 0, err
	}
	groups := make([]FailedGroup, 0, len(m))
	var total int64
	for g, n := range m {
		groups = append(groups, FailedGroup{g, n})
		total += n
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].Count != groups[j].Count {
			return groups[i].Count > groups[j].Count
		}
		return groups[i].Group < groups[j].Group
	})
	return groups, total, nil
}

// failedJobs reads one page of a failure group.
func (d *Dashboard) failedJobs(ctx context.Context, group string, p page) (int64, []Job, error) {
	var r struct {
		Total int64   `json:"total"`
		Jobs  strList `json:"jobs"`
	}
	if err := d.c.callJSON(ctx, &r, "failed", group, p.Offset, p.Limit); err != nil {
		return 0, nil, err
	}
	jobs, err := d.c.jobs(ctx, r.Jobs)
	return r.Total, jobs, err
}

// workers lists every worker with its job counts and when it was last
// seen (its score in ql:workers, which QLESS workers does not reply).
func (d *Dashboard) workers(ctx context.Context) ([]Worker, error) {
	list := []Worker{}
	err := d.c.callJSON(ctx, &list, "workers")
	return list, err
}

// lastSeen fills in LastSeen for the workers given.
func (d *Dashboard) lastSeen(ctx context.Context, ws []Worker) {
	if len(ws) == 0 {
		return
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Name
	}
	scores, err := d.c.rdb.ZMScore(ctx, "ql:workers", names...).Result()
	if err != nil {
		return
	}
	for i := range ws {
		if i < len(scores) {
			ws[i].LastSeen = scores[i]
		}
	}
}

// workerJobs reads the jobs a worker holds, and those whose lock it lost.
func (d *Dashboard) workerJobs(ctx context.Context, name string) ([]Job, []Job, error) {
	var r struct {
		Jobs    strList `json:"jobs"`
		Stalled strList `json:"stalled"`
	}
	if err := d.c.callJSON(ctx, &r, "workers", name); err != nil {
		return nil, nil, err
	}
	jobs, err := d.c.jobs(ctx, atMost(r.Jobs, maxLimit))
	if err != nil {
		return nil, nil, err
	}
	stalled, err := d.c.jobs(ctx, atMost(r.Stalled, maxLimit))
	return jobs, stalled, err
}

// stateJIDs reads one page of a queue's jobs in state. qless has no paged
// read of a queue's waiting jobs (peek has no offset and moves due
// scheduled jobs), so those are read from the queue's work set in the
// order pop takes them.
func (d *Dashboard) stateJIDs(ctx context.Context, queue, state string, p page) ([]string, error) {
	if state == "waiting" {
		return d.c.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: "ql:q:" + queue + "-work", Start: p.Offset,
			Stop: p.Offset + p.Limit - 1, Rev: true}).Result()
	}
	var jids strList
	err := d.c.callJSON(ctx, &jids, "jobs", state, queue, p.Offset, p.Limit)
	return jids, err
}

// recurring reads recurring jobs by jid.
func (d *Dashboard) recurring(ctx context.Context, jids []string) ([]Recurring, error) {
	calls := make([][]any, len(jids))
	for i, j := range jids {
		calls[i] = qlessArgs("recur.get", j)
	}
	texts, errs := d.c.pipeline(ctx, calls)
	out := make([]Recurring, 0, len(jids))
	for i, s := range texts {
		var r *Recurring // stays nil for a jid that recurs no more
		if errs[i] == nil {
			errs[i] = decodeReply(s, &r, "recur.get")
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		if r != nil {
			out = append(out, *r)
		}
	}
	d.schedule(ctx, out)
	return out, nil
}

// job reads one job; ok is false when there is none.
func (d *Dashboard) job(ctx context.Context, jid string) (Job, bool, error) {
	var j *Job // stays nil when qless has no such job
	if err := d.c.callJSON(ctx, &j, "get", jid); err != nil || j == nil {
		return Job{}, false, err
	}
	return *j, true, nil
}

// stats reads today's wait and run statistics of a queue.
func (d *Dashboard) stats(ctx context.Context, queue string) (Stats, error) {
	var s Stats
	err := d.c.callJSON(ctx, &s, "stats", queue, strconv.FormatInt(time.Now().Unix(), 10))
	return s, err
}

// tracked reads the tracked jobs and the tracked jids whose job is gone.
func (d *Dashboard) tracked(ctx context.Context) ([]Job, []string, error) {
	var r struct {
		Jobs    jobList `json:"jobs"`
		Expired strList `json:"expired"`
	}
	err := d.c.callJSON(ctx, &r, "track")
	return r.Jobs, r.Expired, err
}

// config reads qless's configuration, keys sorted.
func (d *Dashboard) config(ctx context.Context) ([][2]string, error) {
	var m map[string]any
	if err := d.c.callJSON(ctx, &m, "config.get"); err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		b, _ := json.Marshal(v)
		s := string(b)
		if str, ok := v.(string); ok {
			s = str
		}
		out = append(out, [2]string{k, s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}

// topTags reads a page of the tags most jobs carry (qless lists those on
// two jobs or more).
func (d *Dashboard) topTags(ctx context.Context, p page) ([]string, error) {
	var tags strList
	err := d.c.callJSON(ctx, &tags, "tag", "top", p.Offset, p.Limit)
	return tags, err
}

// taggedJobs reads one page of the jobs carrying tag.
func (d *Dashboard) taggedJobs(ctx context.Context, tag string, p page) (int64, []Job, error) {
	var r struct {
		Total int64   `json:"total"`
		Jobs  strList `json:"jobs"`
	}
	if err := d.c.callJSON(ctx, &r, "tag", "get", tag, p.Offset, p.Limit); err != nil {
		return 0, nil, err
	}
	jobs, err := d.c.jobs(ctx, r.Jobs)
	return r.Total, jobs, err
}

// completedJobs reads one page of completed jobs, newest first. qless keeps
// them in one set for every queue and no count of it, so the total is
// unknown and a full page is taken to mean more may follow.
func (d *Dashboard) completedJobs(ctx context.Context, p page) ([]Job, error) {
	var jids strList
	if err := d.c.callJSON(ctx, &jids, "jobs", "complete", p.Offset, p.Limit); err != nil {
		return nil, err
	}
	return d.c.jobs(ctx, jids)
}
