// Package httpd is qlessd's HTTP listener (--http-addr): the Prometheus
// metrics, and whatever else is mounted on it, such as the dashboard.
package httpd

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Options configure the listener.
type Options struct {
	// Addr is host:port to listen on.
	Addr string
	// Password returns the password requests must give (requirepass),
	// read at each request so that CONFIG SET requirepass applies at
	// once; "" (or a nil Password) asks for none. It is asked for on
	// every listener but a loopback one under TrustLoopback.
	Password func() string
	// AllowedHosts returns http-allowed-hosts, normalized
	// (commands.SplitHostList), read at each request: Host names served
	// besides the listener's own (hosts.go).
	AllowedHosts func() []string
	// Protected reports whether protected mode applies now (protected-mode
	// yes and no password), read at Listen and at each request: see
	// protected.go.
	Protected func() bool
	// TrustLoopback, on a loopback listener, asks for no password
	// (http-auth loopback-trusted): every local user and process is then
	// trusted. Beyond loopback the password is asked for regardless.
	TrustLoopback bool
	// TLS, when set, makes the listener serve HTTPS (http-tls, with
	// tls-port's certificate).
	TLS    *tls.Config
	Logger *slog.Logger
}

// Server is a bound listener; handlers are mounted with Mount, before or
// after Serve.
type Server struct {
	ln      net.Listener
	mux     *http.ServeMux
	srv     *http.Server
	opts    Options
	guarded bool // beyond loopback
	auth    *auth
	// The listener's own names (hosts.go): names holds hosts, normalized;
	// anyInterface, when bound to every interface, adds the machine's
	// addresses; port is the port bound.
	names        map[string]bool
	anyInterface bool
	port         string
}

// Listen binds opts.Addr. It does not serve yet: see Serve.
func Listen(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{ln: ln, mux: http.NewServeMux(), opts: opts, auth: newAuth()}
	s.ownNames()
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		s.guarded = true
	}
	if err := s.checkProtected(); err != nil {
		ln.Close()
		return nil, err
	}
	if opts.TLS != nil {
		s.ln = tls.NewListener(ln, opts.TLS)
	}
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// Mount serves h for pattern, in net/http's ServeMux syntax ("/metrics",
// "GET /queues/{name}", "/" for everything else).
func (s *Server) Mount(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Serve serves requests in the background until Close.
func (s *Server) Serve() {
	go func() {
		if err := s.srv.Serve(s.ln); err != nil && err != http.ErrServerClosed {
			s.opts.Logger.Error("http listener stopped", "err", err)
		}
	}()
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Guarded reports whether the listener is beyond loopback.
func (s *Server) Guarded() bool { return s.guarded }

// Close stops listening and waits a little for requests in progress. A
// nil Server (no listener configured) has nothing to close.
func (s *Server) Close() error {
	if s == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	defer s.ln.Close() // Shutdown closes it only when Serve ran
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}

// TLS reports whether the listener serves HTTPS.
func (s *Server) TLS() bool { return s.opts.TLS != nil }

// ServeHTTP refuses a request whose Host is not one of the listener's
// names (421), one from beyond loopback in protected mode (403), serves
// the login form, asks for the password when one is set (auth.go), then
// serves the mounted handlers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.AllowedHost(r.Host) {
		http.Error(w, "421 Misdirected Request: Host "+strconv.Quote(r.Host)+
			" is not a name of this qlessd; add it to http-allowed-hosts to serve it", http.StatusMisdirectedRequest)
		return
	}
	if s.deniedByProtectedMode(r) {
		http.Error(w, protectedDenied, http.StatusForbidden)
		return
	}
	if s.serveAuthPages(w, r) {
		return
	}
	if ok, status := s.authorized(r); !ok {
		s.refuse(w, r, status)
		return
	}
	s.mux.ServeHTTP(w, r)
}
