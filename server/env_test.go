package server

import (
	"io"
	"log/slog"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

// INFO stats' totals read the counts, and CONFIG RESETSTAT zeroes them.
func TestServerCountsInStatsAndReset(t *testing.T) {
	srv, err := New(Config{Dir: ":memory:", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, commands.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.counts.conns.Add(3)
	srv.counts.rejected.Add(2)
	srv.counts.commands.Add(7)
	st := srv.ServerStats()
	if st.TotalConnections != 3 || st.RejectedConns != 2 || st.TotalCommands != 7 {
		t.Errorf("stats %d/%d/%d, want 3/2/7", st.TotalConnections, st.RejectedConns, st.TotalCommands)
	}
	srv.ResetStats()
	st = srv.ServerStats()
	if st.TotalConnections != 0 || st.RejectedConns != 0 || st.TotalCommands != 0 {
		t.Errorf("after reset: %d/%d/%d", st.TotalConnections, st.RejectedConns, st.TotalCommands)
	}
}
