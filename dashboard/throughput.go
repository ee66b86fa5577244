package dashboard

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// minutes is how many one-minute buckets the throughput chart shows.
const minutes = 60

// sampler counts completed jobs per minute. qless keeps, per queue and
// day, how many jobs completed (the count of the run-time statistic): the
// sampler reads those counts every SampleEvery and files the growth under
// the current minute, so the figure is exact at any job rate and costs one
// QLESS stats call per queue and sample. It knows what happened since it
// started, not before.
type sampler struct {
	c     *client
	every time.Duration

	mu      sync.Mutex
	last    map[string]dayCount // per queue: the last count read and its day
	total   ring
	byQueue map[string]*ring
	started time.Time
	// primed is set by the first sample: queues that appear after it are
	// new, and all their completions today are growth.
	primed bool
}

type dayCount struct {
	day   int64
	count int64
}

// ring holds one count per minute, indexed by unix minute.
type ring struct {
	counts [minutes]int64
	minute [minutes]int64
}

func (r *ring) add(minute, n int64) {
	i := minute % minutes
	if r.minute[i] != minute {
		r.minute[i], r.counts[i] = minute, 0
	}
	r.counts[i] += n
}

// series returns the counts of the minutes up to and including now.
func (r *ring) series(now int64) []int64 {
	out := make([]int64, minutes)
	for k := 0; k < minutes; k++ {
		m := now - int64(minutes-1-k)
		if r.minute[m%minutes] == m {
			out[k] = r.counts[m%minutes]
		}
	}
	return out
}

// Throughput is completed jobs per minute over the last hour.
type Throughput struct {
	// Start is the unix time of the first minute; each count is one minute.
	Start  int64   `json:"start"`
	Counts []int64 `json:"counts"`
	// Since is when counting began (the chart is empty before).
	Since int64 `json:"since"`
}

func newSampler(c *client, every time.Duration) *sampler {
	return &sampler{c: c, every: every, last: map[string]dayCount{}, byQueue: map[string]*ring{}, started: time.Now()}
}

func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sample(ctx)
		}
	}
}

func (s *sampler) sample(ctx context.Context) {
	var list []QueueCounts
	if err := s.c.callJSON(ctx, &list, "queues"); err != nil {
		return
	}
	now := time.Now().Unix()
	day := now - now%86400
	calls := make([][]any, 0, len(list))
	for _, q := range list {
		calls = append(calls, qlessArgs("stats", q.Name, strconv.FormatInt(now, 10)))
		// A day that ended since the last sample is read to its end too.
		if prev, ok := s.seen(q.Name); ok && prev.day != day {
			calls = append(calls, qlessArgs("stats", q.Name, strconv.FormatInt(prev.day, 10)))
		}
	}
	texts, errs := s.c.pipeline(ctx, calls)
	counts := make([]int64, len(texts))
	for i, t := range texts {
		var st Stats
		if errs[i] != nil || json.Unmarshal([]byte(t), &st) != nil {
			return
		}
		counts[i] = st.Run.Count
	}
	s.record(list, counts, day, now/60)
}

func (s *sampler) seen(queue string) (dayCount, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.last[queue]
	return p, ok
}

// record files each queue's growth since the last sample; counts holds
// today's count for each queue, followed by the ended day's where a day
// ended (as sample asked for them).
func (s *sampler) record(list []QueueCounts, counts []int64, day, minute int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := 0
	for _, q := range list {
		today := counts[i]
		i++
		prev, ok := s.last[q.Name]
		var grew int64
		switch {
		case ok && prev.day == day:
			grew = today - prev.count
		case ok:
			grew = today + counts[i] - prev.count
			i++
		case s.primed:
			grew = today
		}
		s.last[q.Name] = dayCount{day, today}
		if grew <= 0 {
			continue
		}
		s.total.add(minute, grew)
		r := s.byQueue[q.Name]
		if r == nil {
			r = &ring{}
			s.byQueue[q.Name] = r
		}
		r.add(minute, grew)
	}
	s.primed = true
}

// throughput is the total, or one queue's when queue is not "".
func (s *sampler) throughput(queue string) Throughput {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().Unix() / 60
	t := Throughput{Start: (now - minutes + 1) * 60, Since: s.started.Unix()}
	switch r := s.byQueue[queue]; {
	case queue == "":
		t.Counts = s.total.series(now)
	case r != nil:
		t.Counts = r.series(now)
	default:
		t.Counts = make([]int64, minutes)
	}
	return t
}
