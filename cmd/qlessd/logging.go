package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/qlessd/qlessd/server"
)

// openLog makes the logger the settings ask for: key=value lines to the
// logfile (appended to) or to standard error, and to the system log as
// well with syslog-enabled. levels is its level, for CONFIG SET loglevel;
// closeLog closes what openLog opened. A logfile that cannot be opened is
// an error; a system log that cannot be reached is a warning in the log,
// as Redis carries on without one.
func openLog(s settings) (logger *slog.Logger, levels *slog.LevelVar, closeLog func(), err error) {
	levels = new(slog.LevelVar)
	levels.Set(server.LogLevel(s.str("loglevel")))
	var out io.Writer = os.Stderr
	var closers []io.Closer
	if path := s.str("logfile"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("logfile: %w", err)
		}
		out = f
		closers = append(closers, f)
	}
	var h slog.Handler = slog.NewTextHandler(out, &slog.HandlerOptions{Level: levels})
	var syslogErr error
	if s.on("syslog-enabled") {
		sh, c, err := newSyslogHandler(s.str("syslog-ident"), levels)
		if err == nil {
			h = teeHandler{h, sh}
			closers = append(closers, c)
		}
		syslogErr = err
	}
	closeLog = func() {
		for _, c := range closers {
			c.Close()
		}
	}
	logger = slog.New(h)
	if syslogErr != nil {
		logger.Warn("cannot reach the system log; logging without it", "err", syslogErr)
	}
	return logger, levels, closeLog, nil
}

// teeHandler sends each record to both of its handlers.
type teeHandler [2]slog.Handler

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return t[0].Enabled(ctx, l) || t[1].Enabled(ctx, l)
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var first error
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{t[0].WithAttrs(as), t[1].WithAttrs(as)}
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{t[0].WithGroup(name), t[1].WithGroup(name)}
}
