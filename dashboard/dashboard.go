// Package dashboard is qlessd's web dashboard: HTML pages, a JSON API
// under /api/ and a live event stream, as one http.Handler. It reads and
// acts through QLESS calls to the server's own RESP address, so every
// action takes the code path a qless client's call takes.
package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Options configure a Dashboard.
type Options struct {
	// Addr is the server's RESP address (host:port) the dashboard calls.
	Addr string
	// AddrOf, when set, gives the address each new connection dials
	// instead of Addr: the server's moves with CONFIG SET port or bind.
	AddrOf func() string
	// TLS, when set, is how the dashboard's calls reach Addr over TLS
	// (a server serving TLS only).
	TLS *tls.Config
	// Password returns the server's requirepass ("" for none). It is read
	// each time a connection is made, so a CONFIG SET takes effect.
	Password func() string
	// Admin allows actions (retry, cancel, pause...); without it the
	// dashboard is read-only and refuses every POST.
	Admin bool
	// User, when set, is the ACL user the dashboard logs in as (with
	// Password's password); "" logs in as the default user.
	User string
	// May, when set, tells whether the dashboard's user may run QLESS fn:
	// the dashboard shows, and serves, only the actions it may.
	May func(fn string) bool
	// SampleEvery is how often completed-job counts are read for the
	// throughput chart while someone is looking (default 10s).
	SampleEvery time.Duration
	// HostAllowed reports whether a host[:port] names the listener the
	// dashboard is served on (httpd.Server.AllowedHost): an action's
	// Origin must. Without it the Origin must match the request's Host.
	HostAllowed func(hostport string) bool
	// SignedIn, when set, reports whether a request comes with a sign-in
	// session (httpd.Server.SignedIn): the pages then offer to sign out
	// (POST /logout, which the listener serves).
	SignedIn func(*http.Request) bool
	// CSRFKey derives the token every POST must carry (default: random
	// per process, so tokens end with the process).
	CSRFKey []byte
}

// Dashboard is the dashboard's http.Handler. Close stops its background
// reads and closes its connections. It asks browsers for no password:
// qlessd mounts it on its HTTP listener (package httpd), which asks every
// request for requirepass (a login form or HTTP Basic), so one check
// guards the dashboard and /metrics alike.
type Dashboard struct {
	opts    Options
	c       *client
	mux     *http.ServeMux
	pages   *pages
	sampler *sampler
	hub     *hub
	csrf    string
	ctx     context.Context
	stop    context.CancelFunc
	// serving counts the requests in progress, live streams included.
	serving atomic.Int64
}

// New returns a dashboard for the server at opts.Addr. It connects to the
// server when the first request comes, and counts completed jobs for the
// throughput chart only while requests are being served.
func New(opts Options) (*Dashboard, error) {
	if opts.Addr == "" {
		return nil, errors.New("dashboard: Options.Addr (the server's RESP address) is empty")
	}
	if opts.SampleEvery <= 0 {
		opts.SampleEvery = 10 * time.Second
	}
	if len(opts.CSRFKey) == 0 {
		opts.CSRFKey = make([]byte, 32)
		rand.Read(opts.CSRFKey)
	}
	p, err := loadPages()
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	d := &Dashboard{opts: opts, c: newClient(opts.Addr, opts.AddrOf, opts.User, opts.Password, opts.TLS), pages: p,
		csrf: csrfToken(opts.CSRFKey)}
	d.ctx, d.stop = context.WithCancel(context.Background())
	// Nothing is read until someone looks: the sampler reads while a
	// request (a page, the API, the live stream) is being served.
	d.sampler = newSampler(d.c, opts.SampleEvery, func() bool { return d.serving.Load() > 0 })
	d.hub = newHub(d)
	d.mux = d.routes()
	go d.sampler.run(d.ctx)
	return d, nil
}

// SamplerTicks reports how many sampling periods (Options.SampleEvery)
// have passed and in how many the sampler read the server: it reads only
// while a page, an API call or the live stream is being served.
func (d *Dashboard) SamplerTicks() (periods, samples int64) {
	return d.sampler.ticks.Load(), d.sampler.samples.Load()
}

// Close stops the sampler and the live subscription and closes the
// connections to the server.
func (d *Dashboard) Close() error {
	d.stop()
	return d.c.close()
}

func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
		"img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if !strings.HasPrefix(r.URL.Path, "/static/") {
		// The first request after a quiet spell has the throughput brought
		// up to date; a live stream keeps the sampler reading while open.
		if d.serving.Add(1) == 1 {
			d.sampler.poke()
		}
		defer d.serving.Add(-1)
	}
	d.mux.ServeHTTP(w, r)
}

func (d *Dashboard) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("GET /static/", staticHandler())
	m.HandleFunc("GET /events", d.serveEvents)
	d.pageRoutes(m)
	d.apiRoutes(m)
	d.actionRoutes(m)
	d.throttleRoutes(m)
	d.recurRoutes(m)
	return m
}
