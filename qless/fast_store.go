package qless

import (
	"math"
	"strconv"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// Store access for the fast paths. Reads and checks come first, so that a
// call the Lua must run has written nothing; the writes after them are the
// commands the Lua issues, in its order, on keys already known to hold the
// right type.

// holds reports whether key is absent or of type t, so a write to it cannot
// fail as WRONGTYPE.
func (f *fastCall) holds(key string, t store.Type) bool {
	got := f.tx.TypeOf(key)
	return got == store.TypeNone || got == t
}

// hmget reads fields of a hash into vals (has[i] false for a missing
// field, as Lua's false). It fails only on a key of another type.
func (f *fastCall) hmget(key string, fields [][]byte, vals []string, has []bool) bool {
	i := 0
	err := f.tx.HMGet(key, fields, func(v string, ok bool) {
		vals[i], has[i] = v, ok
		i++
	})
	return err == nil
}

func (f *fastCall) hset(key string, pairs ...string) {
	f.tx.HSet(key, pairs...)
}

// zadd sets member's score as ZADD does; the key holds a sorted set or
// nothing (checked before).
func (f *fastCall) zadd(key string, score float64, member string) {
	f.zaddAll(key, score, []string{member})
}

// zrem removes members as ZREM does.
func (f *fastCall) zrem(key string, members ...string) {
	z, err := f.tx.OpenZSet(key)
	if err != nil {
		return
	}
	for _, m := range members {
		z.Remove(m)
	}
	z.Flush()
	z.Release()
}

// zscoreOK reads member's score; false on a key of another type.
func (f *fastCall) zscore(key, member string) (score float64, found, ok bool) {
	z, err := f.tx.OpenZSet(key)
	if err != nil {
		return 0, false, false
	}
	score, found = z.Score(member)
	z.Release()
	return score, found, true
}

// tracked is is_tracked: whether jid is in ql:tracked.
func (f *fastCall) tracked(jid string) (bool, bool) {
	_, found, ok := f.zscore(trackedKey, jid)
	return found, ok
}

func (f *fastCall) publish(channel, message string) {
	if f.hears(channel) {
		f.c.Publish(channel, message)
	}
}

// hears reports whether anyone subscribes to channel, or to a pattern it
// matches. A message nobody hears is dropped, as Redis delivers it to
// nobody; qless logs every put and completion to ql:log, where usually no
// one listens, so those callers ask first, skip building the message, and
// publish through f.c when someone does.
func (f *fastCall) hears(channel string) bool {
	return f.c.Env == nil || f.c.Env.CountSubscribers(channel) > 0
}

var (
	fieldsLimit = [][]byte{[]byte("max-job-history")}
	fieldsState = [][]byte{[]byte("state")}
)

// historyReady reads max-job-history (unless the caller did) and reports
// whether history_add's one-RPUSH case holds: a whole limit of 3 or more
// and a finite time.
func (f *fastCall) historyReady() bool {
	if f.historyLimit == 0 {
		var v [1]string
		var has [1]bool
		if !f.hmget(configKey, fieldsLimit, v[:], has[:]) {
			return false
		}
		if !f.setHistoryLimit(v[0], has[0]) {
			return false
		}
	}
	return true
}

// setHistoryLimit takes max-job-history as read (has false: missing).
func (f *fastCall) setHistoryLimit(v string, has bool) bool {
	limit := 100.0
	if has {
		n, ok := plainString(v)
		if !ok {
			return false
		}
		limit = n
	}
	if limit < 3 || limit >= 1e15 || limit != math.Floor(limit) {
		return false
	}
	f.historyLimit = limit
	return !math.IsNaN(f.now) && !math.IsInf(f.now, 0)
}

// historyAppend is history_add's usual case: one RPUSH, and when the list
// outgrew the limit, the first entry kept and the oldest others dropped.
// entry is the whole entry's text. Reports whether nothing but the append
// happened. The list key holds a list or nothing (checked before).
func (f *fastCall) historyAppend(key, entry string) bool {
	n, err := f.tx.ListPush(key, []string{entry}, false, false)
	if err != nil || float64(n) <= f.historyLimit {
		return true
	}
	drop := n - int64(f.historyLimit)
	first, _, _ := f.tx.ListIndex(key, 0)
	f.tx.ListSet(key, drop, first)
	f.tx.ListTrim(key, drop, -1)
	return false
}

// historyWhen is the text of floor(now) as history entries write it.
func (f *fastCall) historyWhen() string {
	return luaNumber(math.Floor(f.now))
}

// statPlan is the statistics writes of stat(key, val), or of stat_fold
// over several times then stat_flush, worked out before any write.
type statPlan struct {
	key             string
	count, mean, vk float64
	buckets         []statBucket // in the order first hit
}

// statBucket is one histogram field a plan increments.
type statBucket struct {
	field int // index in statFields
	hits  int64
	value string // the field's count after the hits
}

// planStat reads what stat(key, val) needs and computes what it writes;
// false when the Lua must do it (stored values that are not plain numbers,
// a bucket that HINCRBY would refuse, a time outside the histogram).
func (f *fastCall) planStat(key string, val float64) (statPlan, bool) {
	return f.planStatFold(key, []float64{val})
}

// planStatFold is planStat for stat_fold over vals.
func (f *fastCall) planStatFold(key string, vals []float64) (statPlan, bool) {
	p := statPlan{key: key}
	for _, val := range vals {
		field, ok := statField(val)
		if !ok {
			return p, false
		}
		found := false
		for i := range p.buckets {
			if p.buckets[i].field == field {
				p.buckets[i].hits++
				found = true
				break
			}
		}
		if !found {
			p.buckets = append(p.buckets, statBucket{field: field, hits: 1})
		}
	}
	// A pop of up to five distinct buckets reads without allocating.
	var namesArr [8][]byte
	var vArr [8]string
	var hasArr [8]bool
	n := 3 + len(p.buckets)
	names, v, has := namesArr[:0], vArr[:], hasArr[:]
	if n > len(namesArr) {
		names, v, has = make([][]byte, 0, n), make([]string, n), make([]bool, n)
	}
	names = append(names, fieldTotal, fieldMean, fieldVK)
	for _, b := range p.buckets {
		names = append(names, statFieldBytes[b.field])
	}
	v, has = v[:n], has[:n]
	if !f.hmget(key, names, v, has) {
		return p, false
	}
	for i := range p.buckets {
		b := &p.buckets[i]
		var n int64
		if has[3+i] {
			var ok bool
			n, ok = commands.ParseInt([]byte(v[3+i]))
			// HINCRBY takes only an integer's canonical text.
			if !ok || n > math.MaxInt64-b.hits || strconv.FormatInt(n, 10) != v[3+i] {
				return p, false
			}
		}
		b.value = strconv.FormatInt(n+b.hits, 10)
	}
	if has[0] {
		c, ok1 := plainString(v[0])
		m, ok2 := plainString(v[1])
		k, ok3 := plainString(v[2])
		if !(ok1 && ok2 && ok3 && has[1] && has[2]) {
			return p, false
		}
		p.count, p.mean, p.vk = c, m, k
	}
	for i, val := range vals {
		if i == 0 && !has[0] {
			p.count, p.mean, p.vk = 1, val, 0
			continue
		}
		p.count++
		old := p.mean
		p.mean = old + (val-old)/p.count
		p.vk += (val - p.mean) * (val - old)
	}
	return p, true
}

var fieldTotal, fieldMean, fieldVK = []byte("total"), []byte("mean"), []byte("vk")

// applyStat writes a planned stat as stat and stat_flush do (the first
// bucket's HINCRBY, the running figures, then the other buckets), as one
// HSET of the fields in that order: the same values and field order, one
// rewrite of the hash instead of one per command.
func (f *fastCall) applyStat(p *statPlan) {
	var arr [16]string
	pairs := arr[:0]
	first := &p.buckets[0]
	pairs = append(pairs, statFields[first.field], first.value,
		"total", f.number(p.count), "mean", f.number(p.mean), "vk", f.number(p.vk))
	for _, b := range p.buckets[1:] {
		pairs = append(pairs, statFields[b.field], b.value)
	}
	f.tx.HSet(p.key, pairs...)
}

// statFields are the histogram's field names, as stat_field makes them:
// s0-s59, m1-m59, h1-h23, d1-d6 (a week at most), with their bytes for
// HMGET. The minutes start at index statMinutes, the hours at statHours,
// the days at statDays.
const (
	statMinutes = 60
	statHours   = statMinutes + 59
	statDays    = statHours + 23
)

var statFields, statFieldBytes = func() ([]string, [][]byte) {
	var names []string
	for i := 0; i < 60; i++ {
		names = append(names, "s"+strconv.Itoa(i))
	}
	for _, unit := range []struct {
		prefix string
		count  int
	}{{"m", statHours - statMinutes}, {"h", statDays - statHours}, {"d", 6}} {
		for i := 1; i <= unit.count; i++ {
			names = append(names, unit.prefix+strconv.Itoa(i))
		}
	}
	b := make([][]byte, len(names))
	for i, n := range names {
		b[i] = []byte(n)
	}
	return names, b
}()

// statField is stat_field for the times the fast paths take, as an index
// in statFields: 0 up to a week, positive zero (a -0 or negative time goes
// to the Lua).
func statField(val float64) (int, bool) {
	v := math.Floor(val)
	if !(v >= 0 && v < 604800) || math.Signbit(v) {
		return 0, false
	}
	switch {
	case v < 60:
		return int(v), true
	case v < 3600:
		return statMinutes + int(v/60) - 1, true
	case v < 86400:
		return statHours + int(v/3600) - 1, true
	}
	return statDays + int(v/86400) - 1, true
}

// workScore is work_add's score for a job of priority put at now.
func (f *fastCall) workScore(priority float64) float64 {
	return priority - f.now/10000000000
}

// zincrby adds by to member's score (0 when absent), as ZINCRBY does for
// an increment that cannot make NaN; the key holds a sorted set or
// nothing (checked before).
func (f *fastCall) zincrby(key string, by float64, member string) {
	z, err := f.tx.OpenZSet(key)
	if err != nil {
		return
	}
	cur, ok := z.Score(member)
	z.PutScored(member, cur+by, cur, ok)
	z.Flush()
	z.Release()
}

// zaddNX adds member unless present, as ZADD NX does.
func (f *fastCall) zaddNX(key string, score float64, member string) {
	z, err := f.tx.OpenZSet(key)
	if err != nil {
		return
	}
	if _, ok := z.Score(member); !ok {
		z.PutScored(member, score, 0, false)
	}
	z.Flush()
	z.Release()
}
