package commands

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram counts durations in log-linear buckets: exact below 32 ns,
// then 16 buckets per power of two, so a bucket is at most 1/16 (6%)
// wider than its lower bound. It is a sketch of our own for the
// percentiles Redis computes with an HDR histogram; recording is one
// atomic add.
type Histogram struct {
	counts [histBuckets]atomic.Int64
	sum    atomic.Int64 // ns
}

const (
	histSub     = 16
	histBuckets = 40 * histSub // up to 2^40 ns, some 18 minutes
)

func histIndex(ns int64) int {
	if ns < 2*histSub {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 5
	i := (e+1)*histSub + int(uint64(ns)>>e) - histSub
	return min(i, histBuckets-1)
}

// histUpper is the least duration, in ns, above bucket i.
func histUpper(i int) int64 {
	if i < 2*histSub {
		return int64(i) + 1
	}
	e := i/histSub - 1
	m := int64(i%histSub + histSub)
	return (m + 1) << e
}

// Record counts one duration.
func (h *Histogram) Record(d time.Duration) {
	h.counts[histIndex(int64(d))].Add(1)
	h.sum.Add(int64(d))
}

func (h *Histogram) reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
	h.sum.Store(0)
}

// snapshot copies the counts and their total.
func (h *Histogram) snapshot() (counts []int64, total int64) {
	counts = make([]int64, histBuckets)
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
		total += counts[i]
	}
	return counts, total
}

// Percentiles returns the durations, in µs, under which the fractions ps
// of the recorded ones fall (the upper bound of the bucket reaching it),
// or nil when nothing was recorded.
func (h *Histogram) Percentiles(ps ...float64) []float64 {
	counts, total := h.snapshot()
	if total == 0 {
		return nil
	}
	out := make([]float64, len(ps))
	for j, p := range ps {
		want := int64(p/100*float64(total) + 0.5)
		want = max(want, 1)
		var seen int64
		for i, n := range counts {
			seen += n
			if seen >= want {
				out[j] = float64(histUpper(i)) / 1000
				break
			}
		}
	}
	return out
}

// DurationBounds are the upper bounds, in seconds, of the buckets that
// CommandStat.Buckets and FsyncStats.Buckets count up to: Prometheus's
// default buckets from 10 µs on.
var DurationBounds = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// HistogramSnapshot is a histogram as Prometheus exposes one: Buckets[i]
// counts the durations of at most DurationBounds[i] seconds (cumulative;
// a duration is placed by its sketch bucket's upper bound, so it may land
// one bound higher when within 6% under it), Count all of them.
type HistogramSnapshot struct {
	Count   uint64
	Sum     float64 // seconds
	Buckets []uint64
}

// Snapshot returns the histogram as Prometheus exposes one.
func (h *Histogram) Snapshot() HistogramSnapshot {
	counts, total := h.snapshot()
	out := HistogramSnapshot{Count: uint64(total), Sum: float64(h.sum.Load()) / 1e9,
		Buckets: make([]uint64, len(DurationBounds))}
	var cum uint64
	b := 0
	for i, n := range counts {
		upper := float64(histUpper(i)) / 1e9
		for b < len(DurationBounds) && upper > DurationBounds[b] {
			out.Buckets[b] = cum
			b++
		}
		cum += uint64(n)
	}
	for ; b < len(DurationBounds); b++ {
		out.Buckets[b] = cum
	}
	return out
}
