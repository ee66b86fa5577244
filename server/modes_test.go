package server

import (
	"io"
	"log/slog"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

// bothModes runs f against a server whose connections have a goroutine
// each and against one served by the event loop.
func bothModes(t *testing.T, f func(t *testing.T, loop bool)) {
	for _, loop := range []bool{false, true} {
		name := "goroutines"
		if loop {
			name = "eventloop"
		}
		t.Run(name, func(t *testing.T) { f(t, loop) })
	}
}

// startServer starts a server over table on a free loopback port, stopped
// when the test ends.
func startServer(t *testing.T, table *commands.Table, loop bool) *Server {
	t.Helper()
	srv, err := New(Config{Bind: "127.0.0.1", Port: 0, Dir: ":memory:", EventLoop: loop,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, table, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}
