package dashboard

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// minutes is how many one-minute buckets the throughput chart shows.
const minutes = 60

// sampler counts completed jobs per minute. qless keeps, per queue and
// day, how many jobs completed (the count of the run-time statistic): the
// sampler reads those counts every SampleEvery and files the growth under
// the current minute, so the figure is exact at any job rate and costs one
// QLESS stats call per queue and sample. It reads only while active says
// someone is looking (a page or the live stream), so an unwatched
// dashboard makes no calls; the growth over a longer gap is spread over
// its minutes. It knows what happened since its first sample, not before.
type sampler struct {
	c      *client
	every  time.Duration
	active func() bool
	// wake asks for a sample now (a page opened after a quiet spell).
	wake chan struct{}
	// ticks counts the periods that passed, samples those read.
	ticks, samples atomic.Int64

	mu      sync.Mutex
	last    map[string]dayCount // per queue: the last count read and its day
	total   ring
	byQueue map[string]*ring
	started time.Time
	// primed is set by the first sample: queues that appear after it are
	// new, and all their completions today are growth.
	primed bool
	// lastMinute and lastRead are when the last sample was read.
	lastMinute int64
	lastRead   time.Time
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

func newSampler(c *client, every time.Duration, active func() bool) *sampler {
	return &sampler{c: c, every: every, active: active, wake: make(chan struct{}, 1),
		last: map[string]dayCount{}, byQueue: map[string]*ring{}, started: time.Now()}
}

func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.ticks.Add(1)
			if s.active() {
				s.sample(ctx)
			}
		case <-s.wake:
			if time.Since(s.readAt()) >= s.every {
				s.sample(ctx)
			}
		}
	}
}

// poke asks for a sample unless one is already asked for.
func (s *sampler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sampler) readAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastRead
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
	s.samples.Add(1)
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
		spread(&s.total, s.lastMinute, minute, grew)
		r := s.byQueue[q.Name]
		if r == nil {
			r = &ring{}
			s.byQueue[q.Name] = r
		}
		spread(r, s.lastMinute, minute, grew)
	}
	if !s.primed {
		s.started = time.Now()
	}
	s.primed, s.lastMinute, s.lastRead = true, minute, time.Now()
}

// spread files n completions under the minutes after last up to minute.
// qless's counts say how many completed since the last sample, not when:
// within a minute or two they go under the current minute, over a longer
// gap (nobody was looking) evenly over its minutes, the remainder under
// the latest ones. Minutes older than the chart are left out.
func spread(r *ring, last, minute, n int64) {
	span := minute - last
	if last <= 0 || span <= 1 {
		r.add(minute, n)
		return
	}
	base, extra := n/span, n%span
	for m := max(last+1, minute-minutes+1); m <= minute; m++ {
		k := base
		if minute-m < extra {
			k++
		}
		if k > 0 {
			r.add(m, k)
		}
	}
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
