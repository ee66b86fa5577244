package cronsched

import (
	"fmt"
	"testing"
	"time"
)

func TestDueLimitAndBacklog(t *testing.T) {
	s, err := Parse("@hourly", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	h := func(n int) float64 { return float64(time.Date(2026, 1, 1, n, 0, 0, 0, time.UTC).Unix()) }
	now := h(5) + 600
	for _, c := range []struct {
		backlog, limit int
		due            []float64
		next           float64
	}{
		{0, 10, []float64{h(1), h(2), h(3), h(4), h(5)}, h(6)},
		{0, 2, []float64{h(1), h(2)}, h(3)},
		{2, 10, []float64{h(4), h(5)}, h(6)},
		{3, 1, []float64{h(3)}, h(4)},
		{0, 0, nil, h(1)},
	} {
		due, next := s.Due(h(1), now, c.backlog, c.limit)
		if fmt.Sprint(due) != fmt.Sprint(c.due) || next != c.next {
			t.Errorf("backlog %d limit %d: %v then %v, want %v then %v", c.backlog, c.limit, due, next, c.due, c.next)
		}
	}
	if runs := s.Runs(h(1), 3); fmt.Sprint(runs) != fmt.Sprint([]float64{h(1), h(2), h(3)}) {
		t.Errorf("Runs from a run: %v", runs)
	}
}

// A pop a century late with a backlog steps through about the backlog's
// runs, not fifty million: the latest ones come out all the same.
func TestDueCatchUpAfterLongGap(t *testing.T) {
	s, err := Parse("* * * * *", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	score := float64(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	now := float64(time.Date(2120, 1, 1, 0, 0, 30, 0, time.UTC).Unix())
	due, next := s.Due(score, now, 3, 10)
	want := []float64{now - 150, now - 90, now - 30}
	if fmt.Sprint(due) != fmt.Sprint(want) || next != now+30 {
		t.Errorf("%v then %v, want %v then %v", due, next, want, now+30)
	}
	// Without a backlog, limit bounds the walk.
	due, next = s.Due(score, now, 0, 2)
	if fmt.Sprint(due) != fmt.Sprint([]float64{score, score + 60}) || next != score+120 {
		t.Errorf("no backlog: %v then %v", due, next)
	}
}
