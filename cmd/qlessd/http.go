package main

import (
	"log/slog"
	"net"

	"github.com/qlessd/qlessd/cluster"
	"github.com/qlessd/qlessd/dashboard"
	"github.com/qlessd/qlessd/httpd"
	"github.com/qlessd/qlessd/metrics"
	"github.com/qlessd/qlessd/server"
)

// listenHTTP binds the HTTP listener (--http-addr) with /metrics mounted;
// nil when addr is empty. It serves once srv does (serveHTTP).
func listenHTTP(addr string, srv *server.Server, node *cluster.Node, logger *slog.Logger) (*httpd.Server, error) {
	if addr == "" {
		return nil, nil
	}
	h, err := httpd.Listen(httpd.Options{Addr: addr, Password: srv.RequirePass, Logger: logger})
	if err != nil {
		return nil, err
	}
	reg := metrics.NewRegistry(metrics.Collector(metrics.Sources{Store: srv.Store(), Clients: srv.ConnectedClients}),
		metrics.CommandCollector(metrics.CommandSources{Commands: srv.CommandStats, Fsync: srv.FsyncStats}))
	if node != nil {
		reg.MustRegister(metrics.ClusterCollector(node.Stats))
	}
	h.Mount("/metrics", metrics.Handler(reg))
	return h, nil
}

// mountDashboard mounts the dashboard at / on h, calling the server's own
// RESP address. Actions are allowed per http-admin: "auto" allows them
// only on a loopback listener. h asks for requirepass beyond loopback
// already, for every mount.
func mountDashboard(h *httpd.Server, srv *server.Server, s settings) (*dashboard.Dashboard, error) {
	if h == nil {
		return nil, nil
	}
	admin := s.str("http-admin") == "yes" || (s.str("http-admin") == "auto" && !h.Guarded())
	d, err := dashboard.New(dashboard.Options{Addr: srv.Addr().String(), Password: srv.RequirePass, Admin: admin})
	if err != nil {
		return nil, err
	}
	h.Mount("/", d)
	return d, nil
}

// serveHTTP starts serving h, when there is one, and says where.
func serveHTTP(h *httpd.Server, logger *slog.Logger) {
	if h == nil {
		return
	}
	h.Serve()
	logger.Info("http listener ready", "addr", h.Addr().String(), "dashboard", dashboardURL(h.Addr()),
		"metrics", "/metrics", "asks_requirepass", h.Guarded())
}

// dashboardURL is where a browser on this machine finds the dashboard:
// the bound address, with a wildcard bind's host as localhost (a browser
// cannot open http://[::] or http://0.0.0.0 everywhere).
func dashboardURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
