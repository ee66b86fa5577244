package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/qlessd/qlessd/internal/qlessbuilds"
)

// wayOrder is the order the ways of a pass take their turn at each cell:
// every qlessd way next to the Redis way it is compared with, so the two
// lines of a ratio are measured seconds apart rather than minutes.
var wayOrder = [][2]string{
	{"qlessd", "qless.lua"},
	{"redis", "qless.lua"},
	{"qlessd", "native"},
	{"redis", "ours"},
	{"qlessd", "ours"},
}

// runRound runs every pass once.
func runRound(cfg *config, round int, sources map[string]scriptSource, unavailable map[string]bool, note func(string, ...any)) []*result {
	var results []*result
	for _, pass := range cfg.passes {
		if stopping() {
			break
		}
		results = append(results, runPass(cfg, pass, round, sources, unavailable, note)...)
	}
	return results
}

// runPass starts a fresh server for every way, so ways never see each
// other's data, memory or file growth, and then runs each cell (one
// workload at one concurrency) on every way in turn. This machine's speed
// drifts by tens of percent within a minute; when each server ran all its
// cells in one stretch, a ratio compared two moments minutes apart. The
// order turns around from cell to cell and from round to round, so neither
// side of a pair is always the first to meet a change.
func runPass(cfg *config, pass string, round int, sources map[string]scriptSource, unavailable map[string]bool, note func(string, ...any)) []*result {
	concs, workloads := cfg.conc, cfg.workloads
	if pass == "always" {
		concs, workloads = cfg.alwaysConc, cfg.alwaysWork
	}
	sessions := startSessions(cfg, pass, sources, unavailable, note)
	defer func() {
		for _, s := range sessions {
			s.srv.stop()
		}
	}()
	return runCells(sessions, pass, round, concs, workloads)
}

// runCells runs each cell on every session in turn, the order turning
// around from cell to cell and from round to round (see runPass).
func runCells(sessions []*session, pass string, round int, concs []int, workloads []string) []*result {
	var out []*result
	add := func(s *session, rs ...*result) {
		for _, r := range rs {
			if r == nil {
				continue
			}
			out = append(out, r)
			fmt.Fprintf(os.Stderr, "%-8s %-10s %3d %-17s %7d jobs %9.0f jobs/s  p99 %.3f ms %s\n",
				r.Pass, r.Workload, r.Concurrency, s.w.label(), r.Jobs, r.JobsPerSec, r.P99Ms, r.Note)
		}
	}
	if contains(workloads, "footprint") {
		for _, s := range sessions {
			add(s, s.footprint())
		}
	}
	turn := round
	for _, c := range concs {
		for _, wl := range workloads {
			if wl == "footprint" {
				continue // measured once, above
			}
			order := sessions
			if turn%2 == 0 {
				order = slices.Clone(sessions)
				slices.Reverse(order)
			}
			turn++
			for _, s := range order {
				if stopping() {
					return out
				}
				if wl == "ping" && !s.pings {
					continue
				}
				waitRewrites(sessions, pass, wl, c)
				rs := s.cell(wl, c)
				if s.srv.kind == "cluster" {
					if why := s.srv.stillLeads(); why != "" {
						for _, r := range rs {
							r.Note = joinNote(r.Note, why)
						}
					}
				}
				add(s, rs...)
			}
		}
	}
	return out
}

// startSessions starts a server for each way the run asks for and loads
// its script; a way that cannot start is noted and left out of later
// rounds too.
func startSessions(cfg *config, pass string, sources map[string]scriptSource, unavailable map[string]bool, note func(string, ...any)) []*session {
	var sessions []*session
	pinging := map[string]bool{}
	for _, sw := range wayOrder {
		srvKind, wayName := sw[0], sw[1]
		if !contains(cfg.servers, srvKind) || !contains(cfg.ways, wayName) {
			continue
		}
		s := startWay(cfg, pass, srvKind, wayName, sources[wayName], unavailable, note)
		if s == nil {
			continue
		}
		// ping involves no script: once per server kind and pass.
		s.pings = !pinging[srvKind]
		pinging[srvKind] = true
		sessions = append(sessions, s)
	}
	return sessions
}

// startWay starts a server of srvKind and readies way wayName on it (src:
// its script, none for native); nil when it cannot, noted once and marked
// unavailable.
func startWay(cfg *config, pass, srvKind, wayName string, src scriptSource, unavailable map[string]bool, note func(string, ...any)) *session {
	label := srvKind + "/" + wayName
	if unavailable[label] {
		return nil
	}
	if wayName != "native" && src.text == "" {
		note("%s skipped: %s", label, src.reason)
		unavailable[label] = true
		return nil
	}
	text := src.text
	if srvKind == "redis" {
		text = qlessbuilds.RedisLoadable(text)
	}
	w := &way{server: srvKind, name: wayName, source: text}
	srv, err := startServer(cfg, srvKind, pass)
	if err == nil {
		if err = w.prepare(srv.addr); err != nil {
			srv.stop()
		}
	}
	if err != nil {
		note("%s skipped: %s", label, err)
		unavailable[label] = true
		return nil
	}
	return &session{cfg: cfg, w: w, srv: srv, pass: pass}
}

// cell runs one workload at one concurrency.
func (s *session) cell(wl string, c int) []*result {
	switch wl {
	case "ping":
		return []*result{s.ping(c)}
	case "put":
		return []*result{s.put(c)}
	case "pop1":
		return []*result{s.pop(c, 1)}
	case "pop10":
		return []*result{s.pop(c, 10)}
	case "heartbeat":
		return []*result{s.heartbeat(c)}
	case "mixed":
		a, b := s.mixed(c)
		return []*result{a, b}
	case "wait":
		return []*result{s.wait(c)}
	}
	return nil
}

// waitRewrites waits until no server of the pass (no node of a cluster)
// rewrites its data file: every server is running now, and a rewrite set
// off by one cell's writes takes a core from whichever cell comes next, on
// any server.
func waitRewrites(sessions []*session, pass, wl string, c int) {
	for _, s := range sessions {
		addrs := s.srv.addrs()
		for _, addr := range addrs {
			if waited := waitRewrite(addr); waited > 0 {
				of := s.w.label()
				if len(addrs) > 1 {
					of += " node " + addr
				}
				fmt.Fprintf(os.Stderr, "%-8s %-10s %3d waited %s for the data-file rewrite of %s to end\n", pass, wl, c, waited.Round(time.Millisecond), of)
			}
		}
	}
}
