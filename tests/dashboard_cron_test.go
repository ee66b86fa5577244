package tests

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
)

// TestDashboardCronRecurring: a cron recurring job's page shows its
// expression, timezone and next five runs, computed here from the
// calendar with Go's time package.
func TestDashboardCronRecurring(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{Admin: true})
	d.qless("recur", "reports", "jid-cron", "Report", `{}`, "cron", "30 9 * * MON-FRI", "Europe/Berlin")
	code, body := d.get("/jobs/jid-cron")
	if code != http.StatusOK {
		t.Fatalf("GET /jobs/jid-cron: %d\n%s", code, body)
	}
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// From recur.get's next run on, the weekdays' 09:30 in Berlin.
	var rec struct {
		Next int64 `json:"next"`
	}
	if err := json.Unmarshal([]byte(d.qless("recur.get", "jid-cron")), &rec); err != nil {
		t.Fatal(err)
	}
	first := time.Unix(rec.Next, 0).In(loc)
	if first.Hour() != 9 || first.Minute() != 30 || first.Weekday() == time.Saturday || first.Weekday() == time.Sunday {
		t.Fatalf("next run %s", first)
	}
	wants := []string{"30 9 * * MON-FRI", "Europe/Berlin"}
	for day := first; len(wants) < 7; day = day.AddDate(0, 0, 1) {
		at := time.Date(day.Year(), day.Month(), day.Day(), 9, 30, 0, 0, loc)
		if at.Weekday() == time.Saturday || at.Weekday() == time.Sunday {
			continue
		}
		wants = append(wants, at.Format("Mon 2006-01-02 15:04 MST")+" ("+at.UTC().Format("15:04 UTC")+")")
	}
	mustContain(t, "/jobs/jid-cron", body, wants...)
}
