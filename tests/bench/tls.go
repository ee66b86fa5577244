package main

import (
	"crypto/tls"
	"fmt"
	"io"
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
	return args, f.ClientConfig(), nil
}

// runTLS is the TLS part of a run: every pass, every round, each line its
// median round.
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
rounds:
	for round := 1; round <= cfg.rounds && !stopping(); round++ {
		for _, pass := range cfg.passes {
			if stopping() {
				break rounds
			}
			rs, err := runTLSPass(cfg, pass, round, sources, args, client)
			if err != nil {
				note("TLS part ended: %s", firstLine(err.Error()))
				break rounds
			}
			results = append(results, rs...)
		}
	}
	results = medianRounds(results, cfg.rounds)
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
	args func(int) []string, client *tls.Config) ([]*result, error) {
	name := tlsWay(sources)
	tlsWays := [][2]string{{"qlessd", name}, {"qlessd+tls", name}, {"redis", name}, {"redis+tls", name}}
	var sessions []*session
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
				return nil, err
			}
			extra = args(port)
		}
		srv, err := startServerWith(cfg, kind, pass, extra)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sw[0], err)
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
			return nil, fmt.Errorf("%s: %w", w.label(), err)
		}
	}
	return runCells(sessions, pass, round, cfg.tlsConc, []string{"put", "pop1"}), nil
}

// printTLSTable prints the TLS part: per cell, each server's jobs/s in
// clear and over TLS and their ratio, then qlessd's ratio over Redis's
// (1.00 or more: TLS costs qlessd no more than it costs Redis).
func printTLSTable(out io.Writer, results []*result) {
	fmt.Fprintln(out, "TLS: each server in clear and over TLS (fresh servers, TLS 1.3, ECDSA P-256, tls-auth-clients no);")
	way := "-"
	if len(results) > 0 {
		way = results[0].Way
	}
	fmt.Fprintf(out, "both run %s (EVALSHA); tls/pl is jobs/s over TLS over jobs/s in clear; q/r: qlessd's tls/pl over Redis's\n", way)
	fmt.Fprintf(out, "%-8s %-10s %4s %9s %9s %9s %9s %9s %9s %11s\n", "fsync", "workload", "conc",
		"q plain", "q tls", "q tls/pl", "r plain", "r tls", "r tls/pl", "q/r of tls")
	type key struct {
		pass, workload string
		conc           int
	}
	cells := map[key]map[string]float64{}
	var order []key
	for _, r := range results {
		k := key{r.Pass, r.Workload, r.Concurrency}
		if cells[k] == nil {
			cells[k] = map[string]float64{}
			order = append(order, k)
		}
		cells[k][r.Server] = r.JobsPerSec
	}
	ratio := func(a, b float64) string {
		if a == 0 || b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	for _, k := range order {
		c := cells[k]
		qr, rr := c["qlessd+tls"]/c["qlessd"], c["redis+tls"]/c["redis"]
		rr2 := "-"
		if c["qlessd"] > 0 && c["redis"] > 0 && rr > 0 {
			rr2 = fmt.Sprintf("%.2f", qr/rr)
		}
		fmt.Fprintf(out, "%-8s %-10s %4d %9.0f %9.0f %9s %9.0f %9.0f %9s %11s\n", k.pass, k.workload, k.conc,
			c["qlessd"], c["qlessd+tls"], ratio(c["qlessd+tls"], c["qlessd"]),
			c["redis"], c["redis+tls"], ratio(c["redis+tls"], c["redis"]), rr2)
	}
}
