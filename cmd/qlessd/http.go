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
func listenHTTP(s settings, srv *server.Server, node *cluster.Node, logger *slog.Logger) (*httpd.Server, error) {
	addr := s.str("http-addr")
	if addr == "" {
		return nil, nil
	}
	tlsConf, err := httpTLS(srv, s)
	if err != nil {
		return nil, err
	}
	h, err := httpd.Listen(httpd.Options{Addr: addr, Password: srv.RequirePass,
		TrustLoopback: s.str("http-auth") == "loopback-trusted",
		AllowedHosts:  srv.HTTPAllowedHosts, Protected: srv.Protected, TLS: tlsConf, Logger: logger})
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
// only on a loopback listener. h asks for requirepass (http-auth)
// already, for every mount.
func mountDashboard(h *httpd.Server, srv *server.Server, s settings) (*dashboard.Dashboard, error) {
	if h == nil {
		return nil, nil
	}
	admin := s.str("http-admin") == "yes" || (s.str("http-admin") == "auto" && !h.Guarded())
	acl, user := srv.ACL(), s.str("http-user")
	opts := dashboard.Options{Addr: srv.Addr().String(), AddrOf: func() string { return srv.Addr().String() }, Admin: admin, User: user, HostAllowed: h.AllowedHost,
		Password: func() string { return acl.InternalPass(user) },
		May:      func(fn string) bool { return acl.May(user, "qless|"+fn) },
		SignedIn: h.SignedIn}
	if srv.TLSOnly() {
		opts.TLS = srv.TLS().ClientConfig()
	}
	d, err := dashboard.New(opts)
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
	logger.Info("http listener ready", "addr", h.Addr().String(), "dashboard", dashboardURL(h.Addr(), h.TLS()),
		"metrics", "/metrics", "asks_requirepass", h.AsksPassword())
}

// dashboardURL is where a browser on this machine finds the dashboard:
// the bound address, with a wildcard bind's host as localhost (a browser
// cannot open http://[::] or http://0.0.0.0 everywhere).
func dashboardURL(addr net.Addr, https bool) string {
	scheme := "http://"
	if https {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return scheme + net.JoinHostPort(host, port) + "/"
}
