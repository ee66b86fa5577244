//go:build probes

package tests

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// probeModel is what one probe client's acknowledged writes left: the
// client writes only keys of its own (p<c>:...) and one qless job at a time
// in a queue of its own, one command at a time, so its part of the store is
// a function of the commands acknowledged, plus at most one whose reply
// never came (pending: the server died under it, so it may or may not have
// been applied).
type probeModel struct {
	c       int
	seq     int // commands issued, over all rounds: values and qless's clock
	strs    map[string]string
	lists   map[string][]string
	zset    map[string]string // member -> score
	hash    map[string]string
	pushes  int
	jobs    []string // state of job c<c>-<i>
	job     int      // index of the job in progress, or -1
	pending *probeOp
	small   bool // no values past 32 KB

	acked, refused, pendingKept, pendingGone int
}

// probeOp is one command and what it does to the model once applied.
type probeOp struct {
	args  []string
	apply func(m *probeModel)
	check func(m *probeModel, reply any) error
}

func newProbeModel(c int) *probeModel {
	return &probeModel{c: c, strs: map[string]string{}, lists: map[string][]string{},
		zset: map[string]string{}, hash: map[string]string{}, job: -1}
}

func (m *probeModel) clone() *probeModel {
	n := *m
	n.strs, n.zset, n.hash = maps.Clone(m.strs), maps.Clone(m.zset), maps.Clone(m.hash)
	n.lists = map[string][]string{}
	for k, v := range m.lists {
		n.lists[k] = slices.Clone(v)
	}
	n.jobs = slices.Clone(m.jobs)
	return &n
}

func (m *probeModel) key(s string) string { return fmt.Sprintf("p%d:%s", m.c, s) }
func (m *probeModel) jid(i int) string    { return fmt.Sprintf("c%d-%d", m.c, i) }
func (m *probeModel) now() string         { return strconv.Itoa(1700000000 + m.seq) }

// next picks the next command at random.
func (m *probeModel) next(rng *rand.Rand) *probeOp {
	m.seq++
	kind := rng.Intn(6)
	v := m.value(rng, kind == 0 || kind == 4)
	switch kind {
	case 0:
		k := m.key("s:" + strconv.Itoa(rng.Intn(64)))
		return &probeOp{args: []string{"SET", k, v}, apply: func(m *probeModel) { m.strs[k] = v }, check: probeWant("OK")}
	case 1:
		k := m.key("n")
		return &probeOp{args: []string{"INCR", k}, apply: func(m *probeModel) {
			n, _ := strconv.Atoi(m.strs[k])
			m.strs[k] = strconv.Itoa(n + 1)
		}, check: func(m *probeModel, r any) error {
			n, _ := strconv.Atoi(m.strs[k])
			return probeWant(int64(n+1))(m, r)
		}}
	case 2:
		k := m.key("l:" + strconv.Itoa(m.pushes/100))
		return &probeOp{args: []string{"RPUSH", k, v}, apply: func(m *probeModel) {
			m.lists[k] = append(m.lists[k], v)
			m.pushes++
		}, check: func(m *probeModel, r any) error { return probeWant(int64(len(m.lists[k])+1))(m, r) }}
	case 3:
		member := "m" + strconv.Itoa(rng.Intn(50))
		score := strconv.Itoa(m.seq)
		return &probeOp{args: []string{"ZADD", m.key("z"), score, member}, apply: func(m *probeModel) { m.zset[member] = score }}
	case 4:
		field := "f" + strconv.Itoa(rng.Intn(60))
		return &probeOp{args: []string{"HSET", m.key("h"), field, v}, apply: func(m *probeModel) { m.hash[field] = v }}
	}
	return m.nextJobStep()
}

// value is the command's sequence number, some padded to a few kilobytes
// so that frames of many sizes reach the file, and, where overwrite says
// the key or field is overwritten (so the live data stays bounded), a few
// past 32 KB, which the server reads into a buffer of their own
// (docs/limits.md), unless the model is kept small.
func (m *probeModel) value(rng *rand.Rand, overwrite bool) string {
	v := strconv.Itoa(m.seq)
	switch n := rng.Intn(64); {
	case n == 0 && overwrite && !m.small:
		v += ":" + strings.Repeat("x", 32<<10+rng.Intn(64<<10))
	case n < 8:
		v += ":" + strings.Repeat("x", rng.Intn(4000))
	}
	return v
}

// nextJobStep moves the client's job on: put, pop, complete.
func (m *probeModel) nextJobStep() *probeOp {
	queue, worker := fmt.Sprintf("pq%d", m.c), fmt.Sprintf("pw%d", m.c)
	if m.job < 0 {
		i := len(m.jobs)
		return &probeOp{args: []string{"QLESS", "put", m.now(), worker, queue, m.jid(i), "K", "{}", "0"},
			apply: func(m *probeModel) { m.jobs = append(m.jobs, "waiting"); m.job = i }, check: probeWant(m.jid(i))}
	}
	i := m.job
	if m.jobs[i] == "waiting" {
		return &probeOp{args: []string{"QLESS", "pop", m.now(), queue, worker, "1"},
			apply: func(m *probeModel) { m.jobs[i] = "running" }, check: func(m *probeModel, r any) error {
				if s, ok := r.(string); !ok || !strings.Contains(s, `"jid":"`+m.jid(i)+`"`) {
					return fmt.Errorf("pop returned %v, want job %s", r, m.jid(i))
				}
				return nil
			}}
	}
	return &probeOp{args: []string{"QLESS", "complete", m.now(), m.jid(i), worker, queue, "{}"},
		apply: func(m *probeModel) { m.jobs[i] = "complete"; m.job = -1 }, check: probeWant("complete")}
}

func probeWant(want any) func(*probeModel, any) error {
	return func(_ *probeModel, r any) error {
		if r != want {
			return fmt.Errorf("reply %#v, want %#v", r, want)
		}
		return nil
	}
}

// jobsToCheck are the jobs a verification reads: every one not complete,
// the last 200 (qless itself drops completed jobs past its history limits,
// 50,000 jobs or 7 days, so older ones may rightly be gone after a long
// run) and the next two, which must not exist unless the pending command
// put one.
func (m *probeModel) jobsToCheck() []int {
	var idx []int
	for i, s := range m.jobs {
		if s != "complete" || i >= len(m.jobs)-200 {
			idx = append(idx, i)
		}
	}
	return append(idx, len(m.jobs), len(m.jobs)+1)
}

// snapshot is the model as canonical strings by key ("job:<jid>" for a
// job's state); absent keys are left out.
func (m *probeModel) snapshot(jobs []int) map[string]string {
	s := map[string]string{}
	maps.Copy(s, m.strs)
	for k, l := range m.lists {
		s[k] = strings.Join(l, ",")
	}
	if len(m.zset) > 0 {
		s[m.key("z")] = probeJoinSorted(m.zset)
	}
	if len(m.hash) > 0 {
		s[m.key("h")] = probeJoinSorted(m.hash)
	}
	for _, i := range jobs {
		if i < len(m.jobs) {
			s["job:"+m.jid(i)] = m.jobs[i]
		}
	}
	return s
}

func probeJoinSorted(kv map[string]string) string {
	keys := slices.Sorted(maps.Keys(kv))
	for i, k := range keys {
		keys[i] = k + "=" + kv[k]
	}
	return strings.Join(keys, ",")
}

// readSnapshot reads the client's part of the store as snapshot writes it:
// every key SCAN finds under its prefix (so a key the model lacks shows)
// and the jobs named.
func (m *probeModel) readSnapshot(c *probeConn, jobs []int) (map[string]string, error) {
	keys, err := probeScanKeys(c, m.key("*"))
	if err != nil {
		return nil, err
	}
	var cmds [][]string
	for _, k := range keys {
		cmds = append(cmds, probeReadCommand(m, k))
	}
	for _, i := range jobs {
		cmds = append(cmds, []string{"QLESS", "get", m.now(), m.jid(i)})
	}
	replies, err := c.pipeline(cmds)
	if err != nil {
		return nil, err
	}
	s := map[string]string{}
	for i, k := range keys {
		s[k] = probeCanonical(cmds[i][0], replies[i])
	}
	for n, i := range jobs {
		if r := replies[len(keys)+n]; r != nil {
			s["job:"+m.jid(i)] = probeJobState(r)
		}
	}
	return s, nil
}

func probeReadCommand(m *probeModel, k string) []string {
	switch {
	case strings.HasPrefix(k, m.key("l:")):
		return []string{"LRANGE", k, "0", "-1"}
	case k == m.key("z"):
		return []string{"ZRANGE", k, "0", "-1", "WITHSCORES"}
	case k == m.key("h"):
		return []string{"HGETALL", k}
	}
	return []string{"GET", k}
}

// probeCanonical writes a reply to cmd as snapshot writes the value: a list's
// items in order, a hash's or sorted set's pairs sorted.
func probeCanonical(cmd string, r any) string {
	v, ok := r.([]any)
	if !ok {
		if s, ok := r.(string); ok {
			return s
		}
		return fmt.Sprintf("%#v", r)
	}
	if cmd == "LRANGE" {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ",")
	}
	kv := map[string]string{}
	for i := 0; i+1 < len(v); i += 2 {
		kv[fmt.Sprint(v[i])] = fmt.Sprint(v[i+1])
	}
	return probeJoinSorted(kv)
}

func probeJobState(r any) string {
	var job struct{ State string }
	if s, ok := r.(string); !ok || json.Unmarshal([]byte(s), &job) != nil {
		return fmt.Sprintf("unreadable %v", r)
	}
	return job.State
}

func probeScanKeys(c *probeConn, pattern string) ([]string, error) {
	var keys []string
	cursor := "0"
	for {
		r, err := c.do("SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return nil, err
		}
		page, ok := r.([]any)
		if !ok || len(page) != 2 {
			return nil, fmt.Errorf("SCAN replied %#v", r)
		}
		for _, k := range page[1].([]any) {
			keys = append(keys, k.(string))
		}
		if cursor = page[0].(string); cursor == "0" {
			break
		}
	}
	sort.Strings(keys)
	return slices.Compact(keys), nil
}

// verify compares the store with the model: it must hold exactly what was
// acknowledged, plus the pending command or not. It settles the pending
// command either way, and returns the keys that differ from both (lost or
// never-sent writes), empty when all is well.
func (m *probeModel) verify(c *probeConn) ([]string, error) {
	jobs := m.jobsToCheck()
	got, err := m.readSnapshot(c, jobs)
	if err != nil {
		return nil, err
	}
	diff := probeDiff(m.snapshot(jobs), got)
	if len(diff) == 0 {
		if m.pending != nil {
			m.pendingGone++
		}
		m.pending = nil
		return nil, nil
	}
	if m.pending != nil {
		with := m.clone()
		m.pending.apply(with)
		if len(probeDiff(with.snapshot(jobs), got)) == 0 {
			m.pending.apply(m)
			m.pendingKept++
			m.pending = nil
			return nil, nil
		}
	}
	return diff, nil
}

// probeDiff lists each key whose value differs, with both values.
func probeDiff(want, got map[string]string) []string {
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s: want %.80q, got %.80q", k, want[k], got[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: never written, got %.80q", k, got[k]))
		}
	}
	return diff
}
