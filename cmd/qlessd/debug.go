package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on the default mux
	"strings"
)

// serveDebug exposes pprof so an operator can profile a live server. The
// endpoints have no authentication and profiles hold heap contents, so it
// is opt-in, refused beyond loopback while protected mode is on, and
// answers only requests that name it by a loopback name or its own
// address: a page in a browser cannot reach it through DNS rebinding.
func serveDebug(addr string, protected bool, logger *slog.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("debug-addr %q: %v", addr, err)
	}
	if protected && !loopbackHost(host) {
		return fmt.Errorf("protected mode: refusing to serve pprof (no authentication) on %q beyond loopback; use 127.0.0.1, or --protected-mode no", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() {
		err := http.Serve(ln, debugHosts(host, http.DefaultServeMux))
		logger.Warn("debug listener stopped", "addr", addr, "err", err)
	}()
	return nil
}

// debugHosts serves only requests whose Host is a loopback name or the
// listener's own host.
func debugHosts(own string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Host
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		h = strings.Trim(strings.ToLower(h), "[]")
		if !loopbackHost(h) && (own == "" || h != strings.Trim(strings.ToLower(own), "[]")) {
			http.Error(w, "421 Misdirected Request: "+r.Host+" is not a name of this debug listener", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether host names the loopback interface.
func loopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
