package main

import (
	"log/slog"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on the default mux
)

// serveDebug exposes pprof so an operator can profile a live server; it is
// opt-in because the endpoints are unauthenticated.
func serveDebug(addr string, logger *slog.Logger) {
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			logger.Warn("debug listener stopped", "addr", addr, "err", err)
		}
	}()
}
