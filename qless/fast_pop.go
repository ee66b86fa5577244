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
	fieldsJobRead                = [][]byte{[]byte("jid"), []byte("klass"), []byte("state"), []byte("queue"),
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

// fastPop is queue_pop (API pop: queue, worker, count) when nothing but
// waiting work is due: no lost locks, no recurring jobs, no scheduled job
// due, no concurrency limit, and jobs whose stored fields job_json's text
// path writes (tags a plain array of strings, no failure or dependencies;
// history qless wrote).
func fastPop(f *fastCall, args [][]byte) bool {
	if len(args) != 3 {
		return false
	}
	count, ok := plainNumber(args[2])
	if !ok || count < 1 || count > 1000 || count != math.Floor(count) {
		return false
	}
	qn, wn := namesOf(args[0]), workerOf(args[1])
	worker := wn.name
	qname := qn.name
	work, lkey, skeyd, rkey := qn.work, qn.locks, qn.scheduled, qn.recur
	var cfg [4]string
	var has [4]bool
	// The queue's own settings, then the defaults.
	fields := [4][]byte{qn.heartbeatField, fieldHeartbeat, qn.maxConcField, fieldHistory}
	if !f.hmget(configKey, fields[:], cfg[:], has[:]) {
		return false
	}
	hb := 60.0
	switch {
	case has[0]:
		hb, ok = plainString(cfg[0])
	case has[1]:
		hb, ok = plainString(cfg[1])
	}
	if !ok || !f.setHistoryLimit(cfg[3], has[3]) {
		return false
	}
	expires := f.now + hb
	if math.IsNaN(expires) || math.IsInf(expires, 0) {
		return false
	}
	if has[2] {
		if mc, ok := plainString(cfg[2]); !ok || mc > 0 {
			return false
		}
	}
	paused, err := f.tx.SIsMember(pausedQueuesKey, qname)
	if err != nil || paused || queueThrottled(f, qn) || queueRated(f, qn) {
		return false
	}
	if !f.holds(workersKey, store.TypeZSet) || f.tx.Exists(rkey) || f.anyDue(lkey, math.Inf(-1)) ||
		f.anyDue(qn.ttl, math.Inf(-1)) ||
		!f.holds(work, store.TypeZSet) {
		return false
	}
	due, ok := f.dueScheduled(skeyd, work, qname, int64(count))
	if !ok {
		return false
	}
	// take_work: the top of the work set once the due jobs joined it.
	// A pop of one job (the usual call) keeps its working slices in these
	// arrays rather than allocating each.
	var top []store.Entry
	var jidArr [1]string
	var jobArr [1]popJob
	var valArr [1]float64
	z, _ := f.tx.OpenZSet(work)
	z.RangeByRank(0, min(int64(count), z.Len())-1, true, func(e store.Entry) bool {
		top = append(top, e)
		return true
	})
	z.Release()
	if len(due) > 0 {
		top = append(top, due...)
		sort.Slice(top, func(i, j int) bool {
			if top[i].Score != top[j].Score {
				return top[i].Score > top[j].Score
			}
			return top[i].Member > top[j].Member
		})
		top = top[:min(len(top), int(count))]
	}
	jids, jobs, vals := jidArr[:0], jobArr[:0], valArr[:0]
	if len(top) > 1 {
		jids, jobs, vals = make([]string, 0, len(top)), make([]popJob, 0, len(top)), make([]float64, 0, len(top))
	}
	for _, e := range top {
		jids = append(jids, e.Member)
	}
	jobs, vals = jobs[:len(jids)], vals[:len(jids)]
	wjobs := wn.jobs
	skey := qn.statKey("wait", f.now)
	for i, jid := range jids {
		if f.stopped() || !f.readPopJob(jid, &jobs[i]) {
			return false
		}
		vals[i] = f.now - jobs[i].started
	}
	var stat statPlan
	if len(jids) > 0 {
		if !f.holds(wjobs, store.TypeZSet) || !f.holds(lkey, store.TypeZSet) {
			return false
		}
		if stat, ok = f.planStatFold(skey, vals); !ok {
			return false
		}
	}

	// Checked: from here on the Lua's writes, in its order.
	if !f.writing() {
		return false
	}
	f.zadd(workersKey, f.now, worker)
	if len(due) > 0 {
		// check_scheduled: the due jobs become work.
		moved := make([]string, len(due))
		for i, e := range due {
			f.zadd(work, e.Score, e.Member)
			f.hset(jobKey(e.Member), "state", "waiting")
			moved[i] = e.Member
		}
		f.zrem(skeyd, moved...)
	}
	if len(jids) == 0 {
		f.reply("{}")
		return true
	}
	qworker := jsonString(worker)
	when := f.historyWhen()
	entry := "[" + when + `,"popped",{"worker":` + qworker + "}]"
	stamp := fixed20(f.now)
	expText := f.number(expires)
	for i := range jobs {
		f.tick()
		j := &jobs[i]
		key := j.key
		j.trimmed = !f.historyAppend(j.hkey, entry)
		if len(jids) == 1 {
			f.applyStat(&stat)
			f.zadd(wjobs, expires, j.jid)
			f.hset(key, "time", stamp, "worker", worker, "expires", expText, "state", "running")
			f.zadd(lkey, expires, j.jid)
		} else {
			f.hset(key, "time", stamp, "worker", worker, "expires", expText, "state", "running")
		}
		if j.tracked {
			f.publish(poppedChannel, j.jid)
		}
	}
	if len(jids) > 1 {
		f.zaddAll(wjobs, expires, jids)
		f.zaddAll(lkey, expires, jids)
		f.applyStat(&stat)
	}
	f.zrem(work, jids...)
	qn.counts[EventPopped].Add(uint64(len(jids)))

	// {worker} with when and what set in it, in Lua's order for that table.
	extra := `{"when":` + when + `,"what":"popped","worker":` + qworker + `}`
	size := 2
	for i := range jobs {
		j := &jobs[i]
		j.history = append(j.history, extra)
		if j.trimmed {
			// history_add kept the first entry and the newest others.
			keep := int(f.historyLimit) - 1
			j.history = append(j.history[:1], j.history[len(j.history)-keep:]...)
		}
		size += popJobSize(j, worker)
	}
	// One allocation of about the reply's size, not a doubling per
	// kilobyte: this text is most of what a pop allocates.
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i := range jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPopJob(b, &jobs[i], worker, expires)
	}
	b = append(b, ']')
	f.reply(view(b))
	return true
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

// readPopJob is job_read for the jobs fastPop takes.
func (f *fastCall) readPopJob(jid string, j *popJob) bool {
	key := jobKey(jid)
	j.key = key
	hkey := key + "-history"
	j.hkey = hkey
	depsKey, dependentsKey := key+"-dependencies", key+"-dependents"
	f.tx.PrefetchMetas(key, depsKey, dependentsKey, hkey)
	var v [16]string
	var has [16]bool
	if !f.hmget(key, fieldsJobRead, v[:], has[:]) || has[14] || has[15] {
		return false // throttles to take (throttle.lua) or rates to start (rate.lua)
	}
	if !has[0] || !has[1] || !has[3] || !has[5] || !has[7] || !has[8] || !has[9] ||
		!has[10] || (has[11] && v[11] != "{}") {
		return false
	}
	j.tags = "{}"
	if v[10] != "{}" {
		tags, ok := stringArray(v[10])
		if !ok || len(tags) == 0 {
			return false
		}
		j.tags = stringArrayJSON(tags)
	}
	var ok1, ok2, ok3 bool
	j.jid, j.klass, j.queue, j.data = v[0], v[1], v[3], v[9]
	j.spawned, j.hasSpawned = v[12], has[12]
	j.priority, ok1 = plainString(v[5])
	j.retries, ok2 = plainString(v[7])
	j.remaining, ok3 = plainString(v[8])
	if !(ok1 && ok2 && ok3) {
		return false
	}
	j.remaining = math.Floor(j.remaining)
	// job_json writes other numbers through the job table.
	if sum := j.priority + j.retries + j.remaining + f.now; math.IsInf(sum, 0) || math.IsNaN(sum) {
		return false
	}
	j.started = f.now
	if has[13] {
		var ok bool
		if j.started, ok = plainString(v[13]); !ok {
			return false
		}
	}
	tracked, ok := f.tracked(jid)
	if !ok {
		return false
	}
	j.tracked = tracked
	if !f.holds(hkey, store.TypeList) || !f.holds(key, store.TypeHash) {
		return false
	}
	if j.history, ok = f.readHistory(hkey); !ok {
		return false
	}
	if j.dependents, ok = f.setJSON(dependentsKey); !ok {
		return false
	}
	j.depsOn, ok = f.setJSON(depsKey)
	return ok
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
