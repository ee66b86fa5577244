package main

import "testing"

// A qlessd cell is paired with Redis's cell of its own round running the
// same script (QLESS: the first build's), and the line's ratio is the
// median of the rounds' ratios, not a ratio of medians.
func TestClientLinesPairRoundsAndTakeTheMedianRatio(t *testing.T) {
	cell := func(server, way string, round int, jobs float64) *result {
		return &result{Pass: "everysec", Workload: "put", Concurrency: 50, Server: server, Way: way, Round: round, JobsPerSec: jobs, P99Ms: jobs / 1000}
	}
	b := clientBuilds[0]
	rs := []*result{
		cell("qlessd", b, 1, 300), cell("redis", b, 1, 100), cell("qlessd", "native", 1, 400),
		cell("qlessd", b, 2, 200), cell("redis", b, 2, 200), cell("qlessd", "native", 2, 600),
		cell("qlessd", b, 3, 500), cell("redis", b, 3, 100), cell("qlessd", "native", 3, 100),
	}
	lines := clientLines(rs)
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2: %+v", len(lines), lines)
	}
	stock, native := lines[0], lines[1]
	if stock.Build != b || stock.Binding != profileOf(b).Shipped || native.Binding != "QLESS" {
		t.Fatalf("lines: %+v %+v", stock, native)
	}
	// ratios 3, 1, 5: median 3; jobs/s medians 300 and 100
	if stock.Ratio != 3 || stock.RatioMin != 1 || stock.RatioMax != 5 || stock.QlessdJobs != 300 || stock.RedisJobs != 100 {
		t.Fatalf("stock line: %+v", stock)
	}
	// ratios 4, 3, 1 against the same Redis cells
	if native.Ratio != 3 || native.Rounds != 3 {
		t.Fatalf("native line: %+v", native)
	}
}

func TestMedian(t *testing.T) {
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median of four = %v", m)
	}
	if m := median([]float64{9, 1, 5}); m != 5 {
		t.Fatalf("median of three = %v", m)
	}
}
