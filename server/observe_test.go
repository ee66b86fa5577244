package server

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// TestCommandAndFsyncStats checks the Go snapshots a metrics endpoint
// reads: per-command calls, failures and durations as a cumulative
// histogram, and the data file's fsyncs.
func TestCommandAndFsyncStats(t *testing.T) {
	bothModes(t, func(t *testing.T, loop bool) {
		srv, err := New(Config{Bind: "127.0.0.1", Dir: t.TempDir(), AppendFsync: store.SyncAlways, EventLoop: loop,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, commands.Default(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		c, err := net.Dial("tcp", srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Minute))
		c.Write([]byte("SET a 1\r\nGET a\r\nGET a\r\nINCR a\r\nHGET a f\r\n"))
		rd := bufio.NewReader(c)
		for range 5 {
			if _, err := rd.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		byName := map[string]commands.CommandStat{}
		for _, st := range srv.CommandStats() {
			byName[st.Name] = st
		}
		for name, want := range map[string][2]int64{"set": {1, 0}, "get": {2, 0}, "incr": {1, 0}, "hget": {1, 1}} {
			st := byName[name]
			if st.Calls != want[0] || st.Failed != want[1] {
				t.Errorf("%s: %d calls, %d failed; want %v", name, st.Calls, st.Failed, want)
			}
			last := st.Duration.Buckets[len(st.Duration.Buckets)-1]
			if st.Duration.Count != uint64(st.Calls) || last != st.Duration.Count {
				t.Errorf("%s: histogram count %d, last bucket %d, calls %d", name, st.Duration.Count, last, st.Calls)
			}
		}
		if f := srv.FsyncStats(); f.Count == 0 || f.Sum <= 0 {
			t.Errorf("fsync stats after writes with appendfsync always: %+v", f)
		}
	})
}
