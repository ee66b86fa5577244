package main

import (
	"log/slog"

	"github.com/qlessd/qlessd/httpd"
	"github.com/qlessd/qlessd/metrics"
	"github.com/qlessd/qlessd/server"
)

// listenHTTP binds the HTTP listener (--http-addr) with /metrics mounted;
// nil when addr is empty. It serves once srv does (serveHTTP).
func listenHTTP(addr string, srv *server.Server, logger *slog.Logger) (*httpd.Server, error) {
	if addr == "" {
		return nil, nil
	}
	h, err := httpd.Listen(httpd.Options{Addr: addr, Password: srv.RequirePass, Logger: logger})
	if err != nil {
		return nil, err
	}
	reg := metrics.NewRegistry(metrics.Collector(metrics.Sources{Store: srv.Store(), Clients: srv.ConnectedClients}))
	h.Mount("/metrics", metrics.Handler(reg))
	return h, nil
}

// serveHTTP starts serving h, when there is one, and says where.
func serveHTTP(h *httpd.Server, logger *slog.Logger) {
	if h == nil {
		return
	}
	h.Serve()
	logger.Info("http listener ready", "addr", h.Addr().String(), "metrics", "/metrics", "asks_requirepass", h.Guarded())
}
