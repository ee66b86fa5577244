package dashboard

import "testing"

func TestSamplerFilesGrowthPerMinute(t *testing.T) {
	s := newSampler(nil, 0, nil)
	day := int64(20000 * 86400)
	qs := []QueueCounts{{Name: "a"}, {Name: "b"}}
	s.record(qs, []int64{100, 5}, day, 1000) // baseline: nothing counted
	s.record(qs, []int64{130, 5}, day, 1000)
	s.record(qs, []int64{131, 9}, day, 1001)
	// A day ended: a's count restarts; the ended day's last count (140)
	// follows today's.
	s.record(qs, []int64{2, 140, 0, 9}, day+86400, 1002)
	// A queue that appears after the first sample counts all it did.
	s.record(append(qs, QueueCounts{Name: "c"}), []int64{2, 0, 4}, day+86400, 1002)
	got := s.total.series(1002)
	want := map[int]int64{57: 30, 58: 1 + 4, 59: 11 + 4}
	for i, v := range got {
		if v != want[i] {
			t.Fatalf("minute %d: %d, want %d (series %v)", i, v, want[i], got[50:])
		}
	}
	if c := s.byQueue["c"].series(1002)[59]; c != 4 {
		t.Fatalf("queue c: %d", c)
	}
}

// After a quiet spell (nobody looking, so no samples) the completions of
// the gap are spread over its minutes, those beyond the chart left out.
func TestSamplerSpreadsAGap(t *testing.T) {
	s := newSampler(nil, 0, nil)
	day := int64(20000 * 86400)
	qs := []QueueCounts{{Name: "a"}}
	s.record(qs, []int64{10}, day, 1000)
	s.record(qs, []int64{21}, day, 1004) // 11 over minutes 1001..1004
	got := s.total.series(1004)
	if got[56] != 2 || got[57] != 3 || got[58] != 3 || got[59] != 3 || got[55] != 0 {
		t.Fatalf("series %v", got[50:])
	}
	s.record(qs, []int64{21 + 200}, day, 1004+100) // 200 over 100 minutes, 60 shown
	var sum int64
	for _, v := range s.total.series(1104) {
		sum += v
	}
	if sum != 120 {
		t.Fatalf("an hour of a 100-minute gap holds %d, want 120", sum)
	}
}

func TestRingForgetsOldMinutes(t *testing.T) {
	var r ring
	r.add(10, 3)
	r.add(10+minutes, 4) // the same slot an hour later
	s := r.series(10 + minutes)
	if s[minutes-1] != 4 || s[0] != 0 {
		t.Fatalf("series %v", s)
	}
}

func TestLocalPath(t *testing.T) {
	for p, want := range map[string]string{
		"/queues/a?state=x": "/queues/a?state=x", "//evil.example": "", "https://evil.example": "",
		"/\\evil.example": "", "": "", "/ok\r\nSet-Cookie: x": "",
	} {
		if got := localPath(p); got != want {
			t.Errorf("localPath(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[any]string{0: "0", int64(1234567): "1,234,567", -1500: "-1,500", 2.5: "2.5", float64(1e6): "1,000,000"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}
