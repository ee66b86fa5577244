package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/qlessd/qlessd/internal/qlessbuilds"
	"github.com/qlessd/qlessd/internal/testpki"
)

// The TLS part (-tls) runs put and pop1 on qlessd and on Redis, each in
// clear and over TLS (fresh servers each, tls-auth-clients no, TLS 1.3
// with an ECDSA P-256 certificate), and prints what TLS costs each: its
// jobs/s over the plain one's, and qlessd's ratio over Redis's.

// tlsAddrs are the addresses dial reaches over TLS, with the config.
var tlsAddrs sync.Map

// dialTLS is dial's TLS half: nil, nil when addr is plain.
func dialTLS(addr string) (net.Conn, error) {
	conf, ok := tlsAddrs.Load(addr)
	if !ok {
		return nil, nil
	}
	return tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, conf.(*tls.Config))
}

// benchCerts writes a CA and a server certificate for 127.0.0.1 into dir
// and returns the server flags, as both servers take them, and a client
// configuration trusting the CA.
func benchCerts(dir string) (func(port int) []string, *tls.Config, error) {
	f, err := testpki.Write(dir)
	if err != nil {
		return nil, nil, err
	}
	args := func(port int) []string {
		return []string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", f.Cert,
			"--tls-key-file", f.Key, "--tls-ca-cert-file", f.CA, "--tls-auth-clients", "no"}
	}
	conf := f.ClientConfig()
	// Go prefers a post-quantum hybrid key exchange that OpenSSL 3.0 (Redis
	// 7.0's) does not offer: both servers get the same one.
	conf.CurvePreferences = []tls.CurveID{tls.X25519}
	return args, conf, nil
}

// runTLS is the TLS part of a run: every pass, every round, each round's
// four servers fresh. Within a round the cells run each server's plain and
// TLS lines back to back (runCells alternates the order), so that the load
// of a shared machine drifting during a round moves both alike; the table
// then takes the median of each round's ratios. Every round's lines are
// returned, with their round.
func runTLS(cfg *config, sources map[string]scriptSource, note func(string, ...any)) []*result {
	dir, err := os.MkdirTemp("", "qlessd-bench-tls-")
	if err != nil {
		note("TLS part skipped: %v", err)
		return nil
	}
	defer os.RemoveAll(dir)
	args, client, err := benchCerts(dir)
	if err != nil {
		note("TLS part skipped: %v", err)
		return nil
	}
	var results []*result
	seen := map[string]bool{}
rounds:
	for round := 1; round <= cfg.tlsRounds && !stopping(); round++ {
		for _, pass := range cfg.passes {
			if stopping() {
				break rounds
			}
			rs, negotiated, err := runTLSPass(cfg, pass, round, sources, args, client)
			if err != nil {
				note("TLS part ended: %s", firstLine(err.Error()))
				break rounds
			}
			for _, n := range negotiated {
				if !seen[n] {
					seen[n] = true
					note("TLS part: %s", n)
				}
			}
			for _, r := range rs {
				r.Round = round
			}
			results = append(results, rs...)
			printTLSRound(os.Stderr, rs, round)
		}
	}
	sortResults(results)
	return results
}

// tlsWay is the script both servers run in the TLS part: qless.lua when
// given (which qlessd serves natively, as its clients' scripts), else
// qlessd's own; the same on both, so that each server's TLS cost is
// measured against the same work.
func tlsWay(sources map[string]scriptSource) string {
	if sources["qless.lua"].text != "" {
		return "qless.lua"
	}
	return "ours"
}

func runTLSPass(cfg *config, pass string, round int, sources map[string]scriptSource,
	args func(int) []string, client *tls.Config) ([]*result, []string, error) {
	name := tlsWay(sources)
	tlsWays := [][2]string{{"qlessd", name}, {"qlessd+tls", name}, {"redis", name}, {"redis+tls", name}}
	var sessions []*session
	var negotiated []string
	defer func() {
		for _, s := range sessions {
			s.srv.stop()
		}
	}()
	for _, sw := range tlsWays {
		kind, overTLS := strings.CutSuffix(sw[0], "+tls")
		var extra []string
		port := 0
		if overTLS {
			var err error
			if port, err = freePort(); err != nil {
				return nil, nil, err
			}
			extra = args(port)
		}
		srv, err := startServerWith(cfg, kind, pass, extra)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", sw[0], err)
		}
		if overTLS {
			srv.addr = "127.0.0.1:" + strconv.Itoa(port)
			tlsAddrs.Store(srv.addr, client)
		}
		w := &way{server: sw[0], name: sw[1], source: sources[sw[1]].text}
		if kind == "redis" {
			w.source = qlessbuilds.RedisLoadable(w.source)
		}
		s := &session{cfg: cfg, w: w, srv: srv, pass: pass}
		sessions = append(sessions, s)
		if err := w.prepare(srv.addr); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", w.label(), err)
		}
		if overTLS {
			n, err := tlsNegotiated(srv.addr, client)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", sw[0], err)
			}
			negotiated = append(negotiated, sw[0]+" negotiates "+n)
		}
	}
	return runCells(sessions, pass, round, cfg.tlsConc, []string{"put", "pop1"}), negotiated, nil
}

// tlsNegotiated says what a connection of the bench's clients to addr
// agrees on, so that a run shows both servers were measured with the same
// protocol and suite.
func tlsNegotiated(addr string, conf *tls.Config) (string, error) {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, conf)
	if err != nil {
		return "", err
	}
	defer c.Close()
	st := c.ConnectionState()
	return fmt.Sprintf("%s %s, curve %s, resumed %v", tls.VersionName(st.Version),
		tls.CipherSuiteName(st.CipherSuite), st.CurveID, st.DidResume), nil
}
