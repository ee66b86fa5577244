package qless

import (
	"math"
	"sort"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/scripts/luacjson"
	"github.com/qlessd/qlessd/store"
)

var (
	fieldHeartbeat, fieldHistory = []byte("heartbeat"), []byte("max-job-history")
	fieldsJobRead                = [jobFields][]byte{[]byte("jid"), []byte("klass"), []byte("state"), []byte("queue"),
		[]byte("worker"), []byte("priority"), []byte("expires"), []byte("retries"),
		[]byte("remaining"), []byte("data"), []byte("tags"), []byte("failure"),
		[]byte("spawned_from_jid"), []byte("time"), []byte("throttles"), []byte("rates")}
)

// popJob is one job as pop read it, before its writes.
type popJob struct {
	jid, klass, queue, data string
	key, hkey               string // its hash and history keys
	tags                    string // job_json's text of the tags
	dependents, depsOn      string // and of its dependents and dependencies
	spawned                 string
	hasSpawned              bool
	priority, retries       float64
	remaining               float64
	started                 float64 // the time the wait statistic counts from
	tracked                 bool
	history                 []string // each entry's object text, as job_json writes it
	trimmed                 bool     // history_add dropped entries past the limit
}

// The config fields a pop reads: the queue's own settings, then the
// defaults.
const (
	popFieldQueueHeartbeat = iota // <queue>-heartbeat
	popFieldHeartbeat             // heartbeat
	popFieldMaxConcurrency        // <queue>-max-concurrency
	popFieldMaxHistory            // max-job-history
	popFields
)

// popPlan is a pop's arguments (queue, worker, count) and everything it
// writes, worked out before its first write.
type popPlan struct {
	q       *queueNames
	w       *workerNames
	count   float64
	expires float64       // the popped jobs' lock expiry
	due     []store.Entry // the scheduled jobs check_scheduled moves to work
	stat    statPlan      // the wait statistic's update
}

// popTaken are the jobs a pop takes. It travels by value, apart from
// popPlan: the escape analysis follows a struct as a whole, so a slice
// of fastPop's stack arrays held beside the queue's names (which the
// store keeps) would move those arrays to the heap.
type popTaken struct {
	jids []string  // in take_work's order
	jobs []popJob  // as read, one per jid
	vals []float64 // each job's wait, for the wait statistic
}

// fastPop is queue_pop (API pop: queue, worker, count) when nothing but
// waiting work is due: no lost locks, no recurring jobs, no scheduled job
// due, no concurrency limit, and jobs whose stored fields job_json's text
// path writes (tags a plain array of strings, no failure or dependencies;
// history qless wrote).
func fastPop(f *fastCall, args [][]byte) bool {
	var p popPlan
	if !parsePop(args, &p) || !planPopQueue(f, &p) {
		return false
	}
	// A pop of one job (the usual call) keeps its working slices in these
	// arrays rather than allocating each.
	var jidArr [1]string
	var jobArr [1]popJob
	var valArr [1]float64
	t, ok := planPopJobs(f, &p, popTaken{jidArr[:0], jobArr[:0], valArr[:0]})
	if !ok || !f.writing() {
		return false
	}
	applyPop(f, &p, t)
	return true
}

// parsePop reads pop's arguments into p, false for a count the Lua must
// judge.
func parsePop(args [][]byte, p *popPlan) bool {
	if len(args) != 3 {
		return false
	}
	count, ok := plainNumber(args[2])
	if !ok || count < 1 || count > 1000 || count != math.Floor(count) {
		return false
	}
	p.q, p.w, p.count = namesOf(args[0]), workerOf(args[1]), count
	return true
}

// planPopConfig reads the config a pop needs: the lock expiry, the history
// limit; false for a concurrency limit (the Lua counts it).
func planPopConfig(f *fastCall, p *popPlan) bool {
	var cfg [popFields]string
	var has [popFields]bool
	fields := [popFields][]byte{p.q.heartbeatField, fieldHeartbeat, p.q.maxConcField, fieldHistory}
	if !f.hmget(configKey, fields[:], cfg[:], has[:]) {
		return false
	}
	hb, ok := 60.0, true
	switch {
	case has[popFieldQueueHeartbeat]:
		hb, ok = plainString(cfg[popFieldQueueHeartbeat])
	case has[popFieldHeartbeat]:
		hb, ok = plainString(cfg[popFieldHeartbeat])
	}
	if !ok || !f.setHistoryLimit(cfg[popFieldMaxHistory], has[popFieldMaxHistory]) {
		return false
	}
	p.expires = f.now + hb
	if math.IsNaN(p.expires) || math.IsInf(p.expires, 0) {
		return false
	}
	if has[popFieldMaxConcurrency] {
		if mc, ok := plainString(cfg[popFieldMaxConcurrency]); !ok || mc > 0 {
			return false
		}
	}
	return true
}

// planPopQueue checks the queue: nothing the Lua must do first (paused,
// throttled, rated, recurring jobs, lost locks, expired TTLs), and finds
// the scheduled jobs due.
func planPopQueue(f *fastCall, p *popPlan) bool {
	if !planPopConfig(f, p) {
		return false
	}
	q := p.q
	paused, err := f.tx.SIsMember(pausedQueuesKey, q.name)
	if err != nil || paused || queueThrottled(f, q) || queueRated(f, q) {
		return false
	}
	if !f.holds(workersKey, store.TypeZSet) || f.tx.Exists(q.recur) || f.anyDue(q.locks, math.Inf(-1)) ||
		f.anyDue(q.ttl, math.Inf(-1)) ||
		!f.holds(q.work, store.TypeZSet) {
		return false
	}
	var ok bool
	p.due, ok = f.dueScheduled(q.scheduled, q.work, q.name, int64(p.count))
	return ok
}

// takeWork is take_work: the top of the work set once the due jobs
// joined it.
func (f *fastCall) takeWork(p *popPlan) []store.Entry {
	var top []store.Entry
	z, _ := f.tx.OpenZSet(p.q.work)
	z.RangeByRank(0, min(int64(p.count), z.Len())-1, true, func(e store.Entry) bool {
		top = append(top, e)
		return true
	})
	z.Release()
	if len(p.due) > 0 {
		top = append(top, p.due...)
		sort.Slice(top, func(i, j int) bool {
			if top[i].Score != top[j].Score {
				return top[i].Score > top[j].Score
			}
			return top[i].Member > top[j].Member
		})
		top = top[:min(len(top), int(p.count))]
	}
	return top
}

// planPopJobs reads the jobs take_work takes into t (whose slices have
// room for one job) and plans the wait statistic.
func planPopJobs(f *fastCall, p *popPlan, t popTaken) (popTaken, bool) {
	top := f.takeWork(p)
	if len(top) > 1 {
		t = popTaken{make([]string, 0, len(top)), make([]popJob, 0, len(top)), make([]float64, 0, len(top))}
	}
	for _, e := range top {
		t.jids = append(t.jids, e.Member)
	}
	t.jobs, t.vals = t.jobs[:len(t.jids)], t.vals[:len(t.jids)]
	skey := p.q.statKey("wait", f.now)
	for i, jid := range t.jids {
		if f.stopped() || !f.readPopJob(jid, &t.jobs[i]) {
			return t, false
		}
		t.vals[i] = f.now - t.jobs[i].started
	}
	if len(t.jids) == 0 {
		return t, true
	}
	if !f.holds(p.w.jobs, store.TypeZSet) || !f.holds(p.q.locks, store.TypeZSet) {
		return t, false
	}
	var ok bool
	p.stat, ok = f.planStatFold(skey, t.vals)
	return t, ok
}

// applyPop makes a pop's planned writes, in the Lua's order, and replies.
func applyPop(f *fastCall, p *popPlan, t popTaken) {
	q, worker := p.q, p.w.name
	f.zadd(workersKey, f.now, worker)
	if len(p.due) > 0 {
		// check_scheduled: the due jobs become work.
		moved := make([]string, len(p.due))
		for i, e := range p.due {
			f.zadd(q.work, e.Score, e.Member)
			f.hset(jobKey(e.Member), "state", "waiting")
			moved[i] = e.Member
		}
		f.zrem(q.scheduled, moved...)
	}
	if len(t.jids) == 0 {
		f.reply("{}")
		return
	}
	qworker := jsonString(worker)
	when := f.historyWhen()
	entry := "[" + when + `,"popped",{"worker":` + qworker + "}]"
	stamp := fixed20(f.now)
	expText := f.number(p.expires)
	for i := range t.jobs {
		f.tick()
		j := &t.jobs[i]
		j.trimmed = !f.historyAppend(j.hkey, entry)
		if len(t.jids) == 1 {
			f.applyStat(&p.stat)
			f.zadd(p.w.jobs, p.expires, j.jid)
			f.hset(j.key, "time", stamp, "worker", worker, "expires", expText, "state", "running")
			f.zadd(q.locks, p.expires, j.jid)
		} else {
			f.hset(j.key, "time", stamp, "worker", worker, "expires", expText, "state", "running")
		}
		if j.tracked {
			f.publish(poppedChannel, j.jid)
		}
	}
	if len(t.jids) > 1 {
		f.zaddAll(p.w.jobs, p.expires, t.jids)
		f.zaddAll(q.locks, p.expires, t.jids)
		f.applyStat(&p.stat)
	}
	f.zrem(q.work, t.jids...)
	q.counts[EventPopped].Add(uint64(len(t.jids)))
	f.replyPop(p, t, when, qworker)
}

// replyPop writes the popped jobs as job_json does, with the pop's own
// history entry.
func (f *fastCall) replyPop(p *popPlan, t popTaken, when, qworker string) {
	// {worker} with when and what set in it, in Lua's order for that table.
	extra := `{"when":` + when + `,"what":"popped","worker":` + qworker + `}`
	size := 2
	for i := range t.jobs {
		j := &t.jobs[i]
		j.history = append(j.history, extra)
		if j.trimmed {
			// history_add kept the first entry and the newest others.
			keep := int(f.historyLimit) - 1
			j.history = append(j.history[:1], j.history[len(j.history)-keep:]...)
		}
		size += popJobSize(j, p.w.name)
	}
	// One allocation of about the reply's size, not a doubling per
	// kilobyte: this text is most of what a pop allocates.
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i := range t.jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPopJob(b, &t.jobs[i], p.w.name, p.expires)
	}
	b = append(b, ']')
	f.reply(view(b))
}

// dueScheduled is what check_scheduled moves: the queue's scheduled jobs
// due by now (at most count), each with the work score it will get; false
// when the Lua must do it (a job's priority not a plain number, a job
// hash of another type, a due job already in the work set).
func (f *fastCall) dueScheduled(skeyd, work, qname string, count int64) ([]store.Entry, bool) {
	z, err := f.tx.OpenZSet(skeyd)
	if err != nil {
		return nil, false
	}
	var due []store.Entry
	z.RangeByScore(store.ScoreBound{Value: 0}, store.ScoreBound{Value: f.now}, false, func(e store.Entry) bool {
		due = append(due, store.Entry{Member: e.Member})
		return int64(len(due)) < count
	})
	z.Release()
	if len(due) == 0 {
		return nil, true
	}
	w, _ := f.tx.OpenZSet(work)
	defer w.Release()
	for i := range due {
		jid := due[i].Member
		var v [1]string
		var has [1]bool
		if _, in := w.Score(jid); in || !f.hmget(jobKey(jid), fieldsPriority, v[:], has[:]) {
			return nil, false
		}
		priority := 0.0
		if has[0] {
			var ok bool
			if priority, ok = plainString(v[0]); !ok {
				return nil, false
			}
		}
		due[i].Score = f.workScore(priority)
	}
	return due, true
}

var fieldsPriority = [][]byte{[]byte("priority")}

// anyDue reports whether key holds members scored from min up to now; a
// key of another type counts as due (the Lua then raises its error).
func (f *fastCall) anyDue(key string, min float64) bool {
	z, err := f.tx.OpenZSet(key)
	if err != nil {
		return true
	}
	defer z.Release()
	due := false
	z.RangeByScore(store.ScoreBound{Value: min}, store.ScoreBound{Value: f.now}, false, func(store.Entry) bool {
		due = true
		return false
	})
	return due
}

// zaddAll is one ZADD of every member at score; the key holds a sorted set
// or nothing (checked before).
func (f *fastCall) zaddAll(key string, score float64, members []string) {
	z, err := f.tx.OpenZSet(key)
	if err != nil {
		return
	}
	for _, m := range members {
		if cur, ok := z.Score(m); !ok {
			z.PutScored(m, score, 0, false)
		} else if cur != score {
			z.PutScored(m, score, cur, true)
		}
	}
	z.Flush()
	z.Release()
}

// The job's fields a pop reads (job_read), in fieldsJobRead's order.
const (
	jobFieldJid = iota
	jobFieldKlass
	jobFieldState
	jobFieldQueue
	jobFieldWorker
	jobFieldPriority
	jobFieldExpires
	jobFieldRetries
	jobFieldRemaining
	jobFieldData
	jobFieldTags
	jobFieldFailure
	jobFieldSpawnedFrom
	jobFieldTime
	jobFieldThrottles
	jobFieldRates
	jobFields
)

// readPopJob is job_read for the jobs fastPop takes.
func (f *fastCall) readPopJob(jid string, j *popJob) bool {
	j.key, j.hkey = jobKey(jid), jobHistoryKey(jid)
	depsKey, dependentsKey := jobDependenciesKey(jid), jobDependentsKey(jid)
	f.tx.PrefetchMetas(j.key, depsKey, dependentsKey, j.hkey)
	if !f.readPopJobHash(j) {
		return false
	}
	var ok bool
	if j.tracked, ok = f.tracked(jid); !ok {
		return false
	}
	if !f.holds(j.hkey, store.TypeList) || !f.holds(j.key, store.TypeHash) {
		return false
	}
	if j.history, ok = f.readHistory(j.hkey); !ok {
		return false
	}
	if j.dependents, ok = f.setJSON(dependentsKey); !ok {
		return false
	}
	j.depsOn, ok = f.setJSON(depsKey)
	return ok
}

// readPopJobHash reads the job's hash (j.key) into j, false when the Lua
// must pop it: throttles to take (throttle.lua), rates to start
// (rate.lua), a field missing, a failure, tags or numbers that are not
// plain.
func (f *fastCall) readPopJobHash(j *popJob) bool {
	var v [jobFields]string
	var has [jobFields]bool
	if !f.hmget(j.key, fieldsJobRead[:], v[:], has[:]) || has[jobFieldThrottles] || has[jobFieldRates] {
		return false
	}
	for _, i := range [...]int{jobFieldJid, jobFieldKlass, jobFieldQueue, jobFieldPriority,
		jobFieldRetries, jobFieldRemaining, jobFieldData, jobFieldTags} {
		if !has[i] {
			return false
		}
	}
	if has[jobFieldFailure] && v[jobFieldFailure] != "{}" {
		return false
	}
	j.tags = "{}"
	if v[jobFieldTags] != "{}" {
		tags, ok := stringArray(v[jobFieldTags])
		if !ok || len(tags) == 0 {
			return false
		}
		j.tags = stringArrayJSON(tags)
	}
	var ok1, ok2, ok3 bool
	j.jid, j.klass, j.queue, j.data = v[jobFieldJid], v[jobFieldKlass], v[jobFieldQueue], v[jobFieldData]
	j.spawned, j.hasSpawned = v[jobFieldSpawnedFrom], has[jobFieldSpawnedFrom]
	j.priority, ok1 = plainString(v[jobFieldPriority])
	j.retries, ok2 = plainString(v[jobFieldRetries])
	j.remaining, ok3 = plainString(v[jobFieldRemaining])
	if !(ok1 && ok2 && ok3) {
		return false
	}
	j.remaining = math.Floor(j.remaining)
	// job_json writes other numbers through the job table.
	if sum := j.priority + j.retries + j.remaining + f.now; math.IsInf(sum, 0) || math.IsNaN(sum) {
		return false
	}
	j.started = f.now
	if has[jobFieldTime] {
		var ok bool
		if j.started, ok = plainString(v[jobFieldTime]); !ok {
			return false
		}
	}
	return true
}

// setJSON is list_json of SMEMBERS key, for a set of plain strings.
func (f *fastCall) setJSON(key string) (string, bool) {
	if !f.holds(key, store.TypeSet) {
		return "", false
	}
	members, err := commands.SetMembers(f.tx, key)
	if err != nil {
		return "", false
	}
	if len(members) == 0 {
		return "{}", true
	}
	return stringArrayJSON(members), true
}

// readHistory is history_list re-encoded: each entry's object text.
func (f *fastCall) readHistory(key string) ([]string, bool) {
	items, err := f.tx.ListRange(key, 0, -1)
	if err != nil {
		return nil, false
	}
	var buf []byte
	ends := make([]int, len(items))
	for i, it := range items {
		var ok bool
		if buf, ok = appendHistoryDict(buf, it); !ok {
			return nil, false
		}
		ends[i] = len(buf)
	}
	text := view(buf)
	out := make([]string, len(items))
	start := 0
	for i, end := range ends {
		out[i], start = text[start:end], end
	}
	return out, true
}

// popJobSize is about the length of appendPopJob's text: the fixed part,
// the strings as they are (escapes only add), the history entries.
func popJobSize(j *popJob, worker string) int {
	n := 320 + len(j.jid) + len(j.klass) + len(j.queue) + len(worker) + len(j.data) + len(j.tags) +
		len(j.spawned) + len(j.dependents) + len(j.depsOn)
	for _, h := range j.history {
		n += len(h) + 1
	}
	return n
}

// appendPopJob is job_json's text for a job pop just handed to worker, its
// keys in the order Redis's Lua gives qless's job object (see JOB_SHAPE).
func appendPopJob(b []byte, j *popJob, worker string, expires float64) []byte {
	b = append(b, `{"jid":`...)
	b = luacjson.AppendString(b, j.jid)
	b = append(b, `,"retries":`...)
	b = append(b, luaNumber(j.retries)...)
	b = append(b, `,"data":`...)
	b = luacjson.AppendString(b, j.data)
	b = append(b, `,"failure":{},"expires":`...)
	b = append(b, luaNumber(expires)...)
	b = append(b, `,"remaining":`...)
	b = append(b, luaNumber(j.remaining)...)
	b = append(b, `,"spawned_from_jid":`...)
	if j.hasSpawned {
		b = luacjson.AppendString(b, j.spawned)
	} else {
		b = append(b, "false"...)
	}
	b = append(b, `,"dependencies":`...)
	b = append(b, j.depsOn...)
	b = append(b, `,"klass":`...)
	b = luacjson.AppendString(b, j.klass)
	if j.tracked {
		b = append(b, `,"tracked":true`...)
	} else {
		b = append(b, `,"tracked":false`...)
	}
	b = append(b, `,"tags":`...)
	b = append(b, j.tags...)
	b = append(b, `,"queue":`...)
	b = luacjson.AppendString(b, j.queue)
	b = append(b, `,"state":"running","history":`...)
	if len(j.history) == 0 {
		b = append(b, "{}"...)
	} else {
		for i, h := range j.history {
			if i == 0 {
				b = append(b, '[')
			} else {
				b = append(b, ',')
			}
			b = append(b, h...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"dependents":`...)
	b = append(b, j.dependents...)
	b = append(b, `,"priority":`...)
	b = append(b, luaNumber(j.priority)...)
	b = append(b, `,"worker":`...)
	b = luacjson.AppendString(b, worker)
	return append(b, '}')
}
