package commands

import (
	"testing"
	"time"
)

func TestHistogramBucketsCoverDurations(t *testing.T) {
	for _, ns := range []int64{0, 1, 31, 32, 33, 1000, 1023, 1024, 123456789, 1 << 39} {
		i := histIndex(ns)
		lower := int64(0)
		if i > 0 {
			lower = histUpper(i - 1)
		}
		if ns < lower || ns >= histUpper(i) {
			t.Errorf("%d ns in bucket %d [%d, %d)", ns, i, lower, histUpper(i))
		}
		if w := histUpper(i) - lower; ns >= 32 && w*16 > lower {
			t.Errorf("bucket %d of %d ns is %d ns wide, more than 1/16 of its lower bound", i, ns, w)
		}
	}
}

func TestHistogramPercentilesAndSnapshot(t *testing.T) {
	var h Histogram
	for i := range 1000 {
		h.Record(time.Duration(i+1) * time.Microsecond) // 1 µs to 1 ms
	}
	h.Record(2 * time.Second)
	p := h.Percentiles(50, 99, 99.9)
	for i, want := range []float64{500, 990, 1000} {
		if p[i] < want || p[i] > want*1.07 {
			t.Errorf("p%d = %.3f µs, want %.0f within the sketch's 6%%", i, p[i], want)
		}
	}
	s := h.Snapshot()
	if s.Count != 1001 {
		t.Fatalf("count %d", s.Count)
	}
	at := func(bound float64) uint64 {
		for i, b := range DurationBounds {
			if b == bound {
				return s.Buckets[i]
			}
		}
		t.Fatalf("no bound %g", bound)
		return 0
	}
	// 100 µs holds the first 100 calls but for the sketch's last bucket
	// below it; 1 ms all but the 2 s one; 2.5 s all.
	if n := at(0.0001); n < 90 || n > 100 {
		t.Errorf("le=0.0001: %d", n)
	}
	if n := at(0.001); n < 940 || n > 1000 {
		t.Errorf("le=0.001: %d", n)
	}
	if n := at(1); n != 1000 {
		t.Errorf("le=1: %d", n)
	}
	if n := at(2.5); n != 1001 {
		t.Errorf("le=2.5: %d", n)
	}
	if got, want := s.Sum, 2+0.5005; got < want-0.001 || got > want+0.001 {
		t.Errorf("sum %.4f s, want %.4f", got, want)
	}
}
