//go:build !windows && !plan9

package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"log/syslog"
	"sync"
)

// syslogHandler writes key=value lines to the system log, each at the
// priority of its level, as the daemon facility as Redis does.
type syslogHandler struct {
	text slog.Handler // formats into buf
	buf  *bytes.Buffer
	mu   *sync.Mutex
	w    *syslog.Writer
}

func newSyslogHandler(ident string, levels *slog.LevelVar) (slog.Handler, io.Closer, error) {
	w, err := syslog.New(syslog.LOG_NOTICE|syslog.LOG_DAEMON, ident)
	if err != nil {
		return nil, nil, err
	}
	return syslogHandlerOn(w, levels), w, nil
}

// syslogHandlerOn is the handler writing to w.
func syslogHandlerOn(w *syslog.Writer, levels *slog.LevelVar) slog.Handler {
	buf := new(bytes.Buffer)
	// The system log stamps each line with its own time.
	noTime := func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	text := slog.NewTextHandler(buf, &slog.HandlerOptions{Level: levels, ReplaceAttr: noTime})
	return &syslogHandler{text: text, buf: buf, mu: new(sync.Mutex), w: w}
}

func (h *syslogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.text.Enabled(ctx, l)
}

func (h *syslogHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.Reset()
	if err := h.text.Handle(ctx, r); err != nil {
		return err
	}
	line := string(bytes.TrimRight(h.buf.Bytes(), "\n"))
	switch {
	case r.Level >= slog.LevelError:
		return h.w.Err(line)
	case r.Level >= slog.LevelWarn:
		return h.w.Warning(line)
	case r.Level >= slog.LevelInfo:
		return h.w.Notice(line)
	case r.Level > slog.LevelDebug:
		return h.w.Info(line)
	}
	return h.w.Debug(line)
}

func (h *syslogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.text = h.text.WithAttrs(as)
	return &c
}

func (h *syslogHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.text = h.text.WithGroup(name)
	return &c
}
