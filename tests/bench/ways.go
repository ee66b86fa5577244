package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// way is one way of running the qless API on one server: EVALSHA of a
// script, or qlessd's native QLESS command.
type way struct {
	server string // "redis" or "qlessd"
	name   string // "qless.lua", "ours" or "native"
	source string // script text; empty for native
	sha    string
}

func (w *way) label() string { return w.server + "/" + w.name }

// call builds the command running qless function fn at time now.
func (w *way) call(fn string, now string, args ...string) []string {
	var out []string
	if w.sha == "" {
		out = append(make([]string, 0, len(args)+3), "QLESS", fn, now)
	} else {
		out = append(make([]string, 0, len(args)+5), "EVALSHA", w.sha, "0", fn, now)
	}
	return append(out, args...)
}

// nowArg is the qless "now" argument: unix seconds with fractions.
func nowArg() string {
	return strconv.FormatFloat(float64(time.Now().UnixMicro())/1e6, 'f', 6, 64)
}

// scriptSource is a script text to try, or why it is missing.
type scriptSource struct {
	text   string
	reason string
}

// prepare makes w usable on the server at addr: loads its script (the
// loaded copy is lost when the server stops, so this runs per server) and
// checks one harmless call; the error says why the way is unavailable.
func (w *way) prepare(addr string) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.close()
	if w.name != "native" {
		r, err := c.do("SCRIPT", "LOAD", w.source)
		if err != nil {
			return fmt.Errorf("SCRIPT LOAD: %s", firstLine(err.Error()))
		}
		w.sha = r.str
	}
	// A job's whole life, so a way that loads but cannot run qless (a
	// missing library or command) is skipped rather than measured failing.
	steps := [][]string{
		w.call("put", nowArg(), "w", "bench-probe", "probe", "bench.Job", jobData(), "0"),
		w.call("pop", nowArg(), "bench-probe", "w", "1"),
		w.call("heartbeat", nowArg(), "probe", "w", jobData()),
		w.call("complete", nowArg(), "probe", "w", "bench-probe", jobData()),
	}
	for _, args := range steps {
		r, err := c.do(args...)
		if err != nil {
			return fmt.Errorf("%s: %s", args[callNameIndex(args)], firstLine(err.Error()))
		}
		if args[callNameIndex(args)] == "pop" {
			if jobs, err := parsePop(r); err != nil || len(jobs) != 1 {
				return fmt.Errorf("pop did not return the probe job: %.80q", r.str)
			}
		}
	}
	if _, err := c.do("FLUSHALL"); err != nil {
		return fmt.Errorf("FLUSHALL: %s", firstLine(err.Error()))
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
