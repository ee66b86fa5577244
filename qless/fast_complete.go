package qless

import (
	"math"

	"github.com/qlessd/qlessd/store"
)

// The job's fields a complete reads, in fieldsCompleteJob's order.
const (
	completeFieldWorker = iota
	completeFieldState
	completeFieldPriority
	completeFieldRetries
	completeFieldQueue
	completeFieldTime
	completeFieldThrottles
	completeFields
)

// The config fields a complete reads, in fieldsCompleteConfig's order.
const (
	historyFieldMax   = iota // max-job-history
	historyFieldCount        // jobs-history-count
	historyFieldAge          // jobs-history
	historyFields
)

var (
	fieldsCompleteJob = [completeFields][]byte{[]byte("worker"), []byte("state"), []byte("priority"),
		[]byte("retries"), []byte("queue"), []byte("time"), []byte("throttles")}
	fieldsCompleteConfig = [historyFields][]byte{[]byte("max-job-history"), []byte("jobs-history-count"), []byte("jobs-history")}
	fieldsTags           = [][]byte{[]byte("tags")}
)

// completeCall is a complete's arguments (jid, worker, queue, data,
// options), parsed.
type completeCall struct {
	jid     string
	w       *workerNames
	q       *queueNames
	data    []byte
	next    string // the queue to advance to (when hasNext)
	hasNext bool
	delay   float64
}

// completeJob is what the job's hash held before the complete.
type completeJob struct {
	worker, state, priority, retries, queue, time string
	hasWorker, hasPriority, hasRetries            bool
	hasQueue, hasTime, hasThrottles               bool
}

// historyConfig is the config that says which completed jobs complete
// deletes.
type historyConfig struct {
	count, age       string // jobs-history-count, jobs-history
	hasCount, hasAge bool
}

// completePlan is everything a complete writes, worked out before its
// first write.
type completePlan struct {
	completion
	call     completeCall
	dkey     string
	job      completeJob
	history  historyConfig
	expired  []expiredJob
	released []releasedJob
}

// fastComplete is job_complete (API complete: jid, worker, queue, data)
// without options, for the running job of that worker and queue, with no
// jobs depending on it; the oldest completed jobs beyond
// jobs-history-count are deleted, with their tags when those are a plain
// array of strings.
//
// With a next queue (and maybe a delay, no dependencies) the job moves on
// to that queue, scheduled or waiting, as job_complete's advance does.
func fastComplete(f *fastCall, args [][]byte) bool {
	var p completePlan
	if !parseComplete(args, &p.call) || !planCompletion(f, &p) {
		return false
	}
	if p.call.hasNext {
		return f.completeAdvance(&p.completion, p.call.next, p.call.delay, p.job.priority, p.job.hasPriority)
	}
	if !planComplete(f, &p) || !f.writing() {
		return false
	}
	applyComplete(f, &p)
	return true
}

// parseComplete reads complete's arguments into c, false when the Lua
// must run the call (dependencies to add, a delay without a next queue).
func parseComplete(args [][]byte, c *completeCall) bool {
	if len(args) < 4 || len(args)%2 != 0 || !decodesTruthy(args[3]) {
		return false
	}
	hasDelay := false
	for i := 4; i < len(args); i += 2 {
		switch string(args[i]) {
		case "next":
			c.next, c.hasNext = string(args[i+1]), true
		case "delay":
			var ok bool
			if c.delay, ok = plainNumber(args[i+1]); !ok {
				return false
			}
			hasDelay = true
		case "depends":
			return false
		}
	}
	if hasDelay && !c.hasNext || c.hasNext && c.next == "" {
		return false
	}
	c.jid, c.w, c.q, c.data = string(args[0]), workerOf(args[1]), namesOf(args[2]), args[3]
	return true
}

// readCompleteJob reads the job's hash as a complete needs it.
func readCompleteJob(f *fastCall, key string, j *completeJob) bool {
	var v [completeFields]string
	var has [completeFields]bool
	if !f.hmget(key, fieldsCompleteJob[:], v[:], has[:]) {
		return false
	}
	*j = completeJob{
		worker: v[completeFieldWorker], hasWorker: has[completeFieldWorker],
		state:    v[completeFieldState],
		priority: v[completeFieldPriority], hasPriority: has[completeFieldPriority],
		retries: v[completeFieldRetries], hasRetries: has[completeFieldRetries],
		queue: v[completeFieldQueue], hasQueue: has[completeFieldQueue],
		time: v[completeFieldTime], hasTime: has[completeFieldTime],
		hasThrottles: has[completeFieldThrottles],
	}
	return true
}

// readHistoryConfig reads the history config, setting the call's history
// limit from max-job-history.
func readHistoryConfig(f *fastCall, h *historyConfig) bool {
	var v [historyFields]string
	var has [historyFields]bool
	if !f.hmget(configKey, fieldsCompleteConfig[:], v[:], has[:]) ||
		!f.setHistoryLimit(v[historyFieldMax], has[historyFieldMax]) {
		return false
	}
	*h = historyConfig{count: v[historyFieldCount], hasCount: has[historyFieldCount],
		age: v[historyFieldAge], hasAge: has[historyFieldAge]}
	return true
}

// planCompletion checks what complete and advance share (the job runs
// with this worker in this queue, the keys it leaves) and plans their
// common writes into p.completion.
func planCompletion(f *fastCall, p *completePlan) bool {
	key := jobKey(p.call.jid)
	hkey := jobHistoryKey(p.call.jid)
	p.dkey = jobDependentsKey(p.call.jid)
	f.tx.PrefetchMetas(key, p.dkey, hkey)
	j := &p.job
	if !readCompleteJob(f, key, j) ||
		!j.hasWorker || j.worker != p.call.w.name || j.state != "running" || !j.hasQueue || j.queue != p.call.q.name || !j.hasRetries {
		return false
	}
	if j.hasThrottles || queueThrottleHeld(f, p.call.q) {
		return false // throttles to let go: throttle.lua does
	}
	retries, ok := plainString(j.retries)
	if !ok || !readHistoryConfig(f, &p.history) {
		return false
	}
	started := f.now
	if j.hasTime {
		if started, ok = plainString(j.time); !ok {
			return false
		}
	}
	c := &p.completion
	*c = completion{jid: p.call.jid, qname: p.call.q.name, key: key, hkey: hkey,
		data: string(p.call.data), retries: retries, work: p.call.q.work, locks: p.call.q.locks,
		scheduled: p.call.q.scheduled, wjobs: p.call.w.jobs}
	if !f.holds(c.hkey, store.TypeList) || !f.holds(c.work, store.TypeZSet) ||
		!f.holds(c.locks, store.TypeZSet) || !f.holds(c.scheduled, store.TypeZSet) ||
		!f.holds(c.wjobs, store.TypeZSet) {
		return false
	}
	if c.stat, ok = f.planStat(p.call.q.statKey("run", f.now), f.now-started); !ok {
		return false
	}
	c.tracked, ok = f.tracked(p.call.jid)
	return ok
}

// planComplete plans what a complete without a next queue writes beyond
// planCompletion: the completed jobs to expire, the dependents to release.
func planComplete(f *fastCall, p *completePlan) bool {
	if !f.holds(completedKey, store.TypeZSet) {
		return false
	}
	var ok bool
	if p.expired, ok = f.planExpiry(p.call.jid, &p.history); !ok {
		return false
	}
	p.released, ok = f.planRelease(p.call.jid, p.dkey, p.expired)
	return ok
}

// applyComplete makes a complete's planned writes, in the Lua's order, and
// replies.
func applyComplete(f *fastCall, p *completePlan) {
	f.leaveQueue(&p.completion)
	if f.hears(logChannel) {
		f.c.Publish(logChannel, `{"jid":`+jsonString(p.call.jid)+`,"event":"completed","queue":`+jsonString(p.call.q.name)+`}`)
	}
	f.storeCompletion(&p.completion, "complete", "")
	f.zadd(completedKey, f.now, p.call.jid)
	if len(p.expired) > 0 {
		jids := make([]string, len(p.expired))
		for i, old := range p.expired {
			f.tick()
			for _, tag := range old.tags {
				f.zrem(tagKey(tag), old.jid)
				f.zincrby(tagsKey, -1, tag)
			}
			f.tx.Delete(jobKey(old.jid))
			f.tx.Delete(jobHistoryKey(old.jid))
			jids[i] = old.jid
		}
		f.zrem(completedKey, jids...)
	}
	f.applyRelease(p.call.jid, p.dkey, p.released)
	p.call.q.counts[EventCompleted].Add(1)
	f.reply("complete")
}

// completion is what a complete has read and planned about its job.
type completion struct {
	jid, qname, key, hkey, data   string
	work, locks, scheduled, wjobs string // the keys it leaves
	retries                       float64
	stat                          statPlan
	tracked                       bool
}

// leaveQueue is job_complete's writes up to where complete and advance
// part: the done entry, the job out of its queue and its worker's jobs,
// the run statistic, the tracking event.
func (f *fastCall) leaveQueue(c *completion) {
	f.historyAppend(c.hkey, "["+f.historyWhen()+`,"done"]`)
	f.zrem(c.work, c.jid)
	f.zrem(c.locks, c.jid)
	f.zrem(c.scheduled, c.jid)
	f.applyStat(&c.stat)
	f.zrem(c.wjobs, c.jid)
	if c.tracked {
		f.publish(completedChannel, c.jid)
	}
}

// storeCompletion is job_complete's HSET of the job, in state and queue.
func (f *fastCall) storeCompletion(c *completion, state, queue string) {
	f.hset(c.key, "data", c.data, "time", fixed20(f.now),
		"state", state, "worker", "", "failure", "{}", "queue", queue, "expires", "0",
		"remaining", f.number(c.retries))
}

// releasedJob is one of the completed job's dependents, as
// release_dependents finds it.
type releasedJob struct {
	jid          string
	free         bool // no other dependency: it joins its queue
	queue        string
	hasQueue     bool
	scheduled    float64 // when it was put with a delay
	hasScheduled bool
	score        float64 // its work score otherwise
}

var fieldsRelease = [releaseFields][]byte{[]byte("queue"), []byte("priority"), []byte("scheduled")}

// planRelease reads what release_dependents needs for jid's dependents (the
// set dkey); false when the Lua must do it (a dependent that is jid itself
// or one of the completed jobs just expired, numbers that are not plain,
// keys of other types).
func (f *fastCall) planRelease(jid, dkey string, expired []expiredJob) ([]releasedJob, bool) {
	if !f.holds(dkey, store.TypeSet) {
		return nil, false
	}
	members, _, err := f.tx.SMembers(dkey)
	if err != nil {
		return nil, false
	}
	out := make([]releasedJob, len(members))
	for i, j := range members {
		if j == jid || f.stopped() {
			return nil, false
		}
		for _, e := range expired {
			if e.jid == j {
				return nil, false
			}
		}
		deps := jobDependenciesKey(j)
		if !f.holds(deps, store.TypeSet) {
			return nil, false
		}
		n, _ := f.tx.SCard(deps)
		if in, _ := f.tx.SIsMember(deps, jid); in {
			n--
		}
		r := &out[i]
		r.jid, r.free = j, n == 0
		if r.free && !f.planReleaseFree(r) {
			return nil, false
		}
	}
	return out, true
}

// The fields of a released job its release reads, in fieldsRelease's
// order.
const (
	releaseFieldQueue = iota
	releaseFieldPriority
	releaseFieldScheduled
	releaseFields
)

// planReleaseFree reads where a dependent with no other dependency goes:
// its queue's scheduled jobs when it was put with a delay, else its work.
func (f *fastCall) planReleaseFree(r *releasedJob) bool {
	var v [releaseFields]string
	var has [releaseFields]bool
	if !f.hmget(jobKey(r.jid), fieldsRelease[:], v[:], has[:]) {
		return false
	}
	if !has[releaseFieldQueue] {
		return true
	}
	r.queue, r.hasQueue = v[releaseFieldQueue], true
	if !f.holds(queueKey(r.queue, "depends"), store.TypeZSet) {
		return false
	}
	var ok bool
	if has[releaseFieldScheduled] {
		r.hasScheduled = true
		r.scheduled, ok = plainString(v[releaseFieldScheduled])
		return ok && f.holds(queueKey(r.queue, "scheduled"), store.TypeZSet)
	}
	var p float64
	if p, ok = plainString(v[releaseFieldPriority]); !ok || !has[releaseFieldPriority] ||
		!f.holds(queueKey(r.queue, "work"), store.TypeZSet) {
		return false
	}
	r.score = f.workScore(p)
	return true
}

// applyRelease is release_dependents' writes.
func (f *fastCall) applyRelease(jid, dkey string, released []releasedJob) {
	if len(released) == 0 {
		return
	}
	for _, r := range released {
		f.tick()
		key := jobKey(r.jid)
		f.tx.SRem(jobDependenciesKey(r.jid), jid)
		if !r.free || !r.hasQueue {
			continue
		}
		f.zrem(queueKey(r.queue, "depends"), r.jid)
		if r.hasScheduled {
			f.zadd(queueKey(r.queue, "scheduled"), r.scheduled, r.jid)
			f.hset(key, "state", "scheduled")
			f.tx.HDel(key, "scheduled")
		} else {
			f.zadd(queueKey(r.queue, "work"), r.score, r.jid)
			f.hset(key, "state", "waiting")
		}
	}
	f.tx.Delete(dkey)
}

// completeAdvance is job_complete for a job moving on to queue nextq:
// the job leaves its queue, then waits (or is scheduled, with a delay) in
// nextq.
func (f *fastCall) completeAdvance(c *completion, nextq string, delay float64, priorityText string, hasPriority bool) bool {
	target := queueKey(nextq, "work")
	if delay > 0 {
		target = queueKey(nextq, "scheduled")
	}
	var priority float64
	if delay <= 0 {
		var ok bool
		if priority, ok = plainString(priorityText); !ok || !hasPriority {
			return false
		}
	}
	if !f.holds(target, store.TypeZSet) || !f.holds(queuesKey, store.TypeZSet) || !f.holds(c.key, store.TypeHash) {
		return false
	}

	// Checked: from here on the Lua's writes, in its order.
	if !f.writing() {
		return false
	}
	f.leaveQueue(c)
	qnext := jsonString(nextq)
	if f.hears(logChannel) {
		f.c.Publish(logChannel, `{"jid":`+jsonString(c.jid)+`,"to":`+qnext+`,"event":"advanced","queue":`+jsonString(c.qname)+`}`)
	}
	f.historyAppend(c.hkey, "["+f.historyWhen()+`,"put",{"q":`+qnext+"}]")
	f.zaddNX(queuesKey, f.now, nextq)
	f.storeCompletion(c, "waiting", nextq)
	jobCounts.add(c.qname, EventCompleted, 1)
	jobCounts.add(nextq, EventPut, 1)
	if delay > 0 {
		f.zadd(target, f.now+delay, c.jid)
		f.reply("scheduled")
		return true
	}
	f.zadd(target, f.workScore(priority), c.jid)
	f.reply("waiting")
	return true
}

// expiredJob is a completed job expire_completed deletes, with its tags.
type expiredJob struct {
	jid  string
	tags []string
}

// planExpiry is expire_completed's work once jid joins ql:completed at
// now: those completed more than jobs-history ago, then the oldest beyond
// jobs-history-count, when their tags are a plain array of strings and
// jid itself is not among them.
func (f *fastCall) planExpiry(jid string, h *historyConfig) ([]expiredJob, bool) {
	count, age, ok := h.limits()
	if !ok {
		return nil, false
	}
	z, err := f.tx.OpenZSet(completedKey)
	if err != nil {
		return nil, false
	}
	drop, ok := f.expiredJids(z, jid, count, age)
	z.Release()
	if !ok {
		return nil, false
	}
	return f.readExpired(drop)
}

// limits are jobs-history-count and jobs-history as numbers, with their
// defaults; false for values the Lua must judge.
func (h *historyConfig) limits() (count, age float64, ok bool) {
	count, age, ok = 50000, 604800, true
	if h.hasCount {
		if count, ok = plainString(h.count); !ok {
			return 0, 0, false
		}
	}
	if h.hasAge {
		if age, ok = plainString(h.age); !ok {
			return 0, 0, false
		}
	}
	if count < 1 || count != math.Floor(count) || count > 1e15 || !(age > 0) {
		return 0, 0, false
	}
	return count, age, true
}

// expiredJids are the completed jobs (z) that expire when jid joins them.
func (f *fastCall) expiredJids(z *store.ZSet, jid string, count, age float64) ([]string, bool) {
	if _, in := z.Score(jid); in {
		return nil, false
	}
	// First those completed long enough ago, then the oldest of the rest
	// beyond the count (jid, just added at now, among the rest).
	cutoff := f.now - age
	aged := func(e store.Entry) bool { return e.Score >= 0 && e.Score <= cutoff }
	var drop []string
	z.RangeByScore(store.ScoreBound{Value: 0}, store.ScoreBound{Value: cutoff}, false, func(e store.Entry) bool {
		drop = append(drop, e.Member)
		return true
	})
	over := z.Len() + 1 - int64(len(drop)) - int64(count)
	if over <= 0 {
		return drop, true
	}
	fine := true
	z.Ascend(func(e store.Entry) bool {
		switch {
		case aged(e):
			return true
		case !(e.Score < f.now || e.Score == f.now && e.Member < jid):
			fine = false
			return false
		}
		drop = append(drop, e.Member)
		over--
		return over > 0
	})
	return drop, fine && over <= 0
}

// readExpired reads the tags of the jobs to expire, false when they are
// not a plain array of strings or their keys hold another type.
func (f *fastCall) readExpired(drop []string) ([]expiredJob, bool) {
	out := make([]expiredJob, len(drop))
	for i, old := range drop {
		var tags [1]string
		var has [1]bool
		if f.stopped() || !f.hmget(jobKey(old), fieldsTags, tags[:], has[:]) {
			return nil, false
		}
		out[i].jid = old
		if !has[0] || tags[0] == "{}" {
			continue
		}
		var ok bool
		if out[i].tags, ok = stringArray(tags[0]); !ok || !f.holds(tagsKey, store.TypeZSet) {
			return nil, false
		}
		for _, tag := range out[i].tags {
			if !f.holds(tagKey(tag), store.TypeZSet) {
				return nil, false
			}
		}
	}
	return out, true
}
