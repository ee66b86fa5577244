//go:build !windows && !plan9

package main

import (
	"context"
	"log/slog"
	"log/syslog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each record reaches the system log at its level's priority, in the
// daemon facility, as one key=value line without the time.
func TestSyslogHandlerPriorities(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	w, err := syslog.Dial("unixgram", sock, syslog.LOG_NOTICE|syslog.LOG_DAEMON, "qlessd-test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	levels := new(slog.LevelVar)
	levels.Set(slog.LevelDebug)
	logger := slog.New(syslogHandlerOn(w, levels)).With("conn", 7)
	logger.Debug("d")
	logger.Log(context.Background(), slog.LevelDebug+2, "v")
	logger.Info("i", "k", "v")
	logger.Warn("w")
	logger.Error("e")
	// daemon is facility 3: priority 3*8 + severity.
	for _, want := range []string{"<31>", "<30>", "<29>", "<28>", "<27>"} {
		buf := make([]byte, 1024)
		ln.SetReadDeadline(time.Now().Add(time.Minute))
		n, err := ln.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got := string(buf[:n])
		if !strings.HasPrefix(got, want) || !strings.Contains(got, "qlessd-test[") || !strings.Contains(got, "conn=7") ||
			strings.Contains(got, "time=") {
			t.Errorf("syslog line %q, want priority %s, the ident, conn=7 and no time", got, want)
		}
	}
}
