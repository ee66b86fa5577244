package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// result is one line of the table.
type result struct {
	Pass        string  `json:"pass"`
	Workload    string  `json:"workload"`
	Concurrency int     `json:"concurrency"`
	Server      string  `json:"server"`
	Way         string  `json:"way"`
	Jobs        int     `json:"jobs"`
	Calls       int     `json:"calls"`
	Errors      int     `json:"errors"`
	Seconds     float64 `json:"seconds"`
	JobsPerSec  float64 `json:"jobs_per_sec"`
	CallsPerSec float64 `json:"calls_per_sec"`
	// Latencies per call in milliseconds (mixed-e2e: per job, put to pop).
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	// Ratio is qlessd's jobs/s over Redis's on the same line, for qlessd lines.
	Ratio           *float64 `json:"qlessd_over_redis,omitempty"`
	RatioAgainst    string   `json:"ratio_against,omitempty"`
	MemBytesPerJob  *float64 `json:"mem_bytes_per_job,omitempty"`
	FileBytesPerJob *float64 `json:"file_bytes_per_job,omitempty"`
	Note            string   `json:"note,omitempty"`
	// OverOneNode is a cluster line's jobs/s over qlessd's alone.
	OverOneNode *float64 `json:"over_one_node,omitempty"`
	// Round is a client view cell's round.
	Round int `json:"round,omitempty"`
	// CPUUsPerJob is the server's CPU time (user and system, every
	// thread) per job over the cell, in microseconds, set-up excluded.
	CPUUsPerJob float64 `json:"server_cpu_us_per_job,omitempty"`
}

func (r *result) setLatency(lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(lat)))) - 1
		i = max(0, min(i, len(lat)-1))
		return float64(lat[i]) / float64(time.Millisecond)
	}
	r.P50Ms, r.P99Ms, r.P999Ms = at(0.50), at(0.99), at(0.999)
}

// reference names the Redis way a qlessd way is compared with: the same
// script; the native command stands in for qless.lua, which it replaces.
func reference(w string) string {
	if w == "native" {
		return "qless.lua"
	}
	return w
}

func setRatios(results []*result) {
	type key struct {
		pass, workload string
		conc           int
		way            string
	}
	redis := map[key]*result{}
	for _, r := range results {
		if r.Server == "redis" {
			redis[key{r.Pass, r.Workload, r.Concurrency, r.Way}] = r
		}
	}
	for _, r := range results {
		if r.Server != "qlessd" || r.JobsPerSec == 0 {
			continue
		}
		ref := redis[key{r.Pass, r.Workload, r.Concurrency, reference(r.Way)}]
		if ref == nil || ref.JobsPerSec == 0 {
			continue
		}
		v := r.JobsPerSec / ref.JobsPerSec
		r.Ratio, r.RatioAgainst = &v, "redis/"+ref.Way
	}
}

// workloadNames are the cells a run can ask for, in table order; the default
// everysec pass runs them all.
var workloadNames = []string{"footprint", "ping", "put", "pop1", "pop10", "heartbeat", "mixed", "wait"}

// workloadOrder is the table's order: mixed-e2e is a second line of mixed.
var workloadOrder = append(slices.Clone(workloadNames), "mixed-e2e")

func sortResults(results []*result) {
	rank := func(s string, list []string) int {
		if i := slices.Index(list, s); i >= 0 {
			return i
		}
		return len(list)
	}
	slices.SortStableFunc(results, func(a, b *result) int {
		if c := rank(a.Pass, []string{"everysec", "always"}) - rank(b.Pass, []string{"everysec", "always"}); c != 0 {
			return c
		}
		if c := rank(a.Workload, workloadOrder) - rank(b.Workload, workloadOrder); c != 0 {
			return c
		}
		if c := a.Concurrency - b.Concurrency; c != 0 {
			return c
		}
		if c := rank(a.Server, []string{"redis", "qlessd"}) - rank(b.Server, []string{"redis", "qlessd"}); c != 0 {
			return c
		}
		return rank(a.Way, []string{"qless.lua", "ours", "native"}) - rank(b.Way, []string{"qless.lua", "ours", "native"})
	})
}

func printTable(out io.Writer, results []*result) {
	fmt.Fprintf(out, "%-8s %-10s %4s %-17s %7s %9s %8s %8s %8s %7s %9s %9s  %s\n",
		"fsync", "workload", "conc", "server/way", "jobs", "jobs/s", "p50 ms", "p99 ms", "p99.9 ms", "q/redis", "mem B/job", "file B/job", "note")
	prev := ""
	for _, r := range results {
		group := r.Pass + r.Workload
		if prev != "" && group != prev {
			fmt.Fprintln(out)
		}
		prev = group
		ratio := "-"
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *r.Ratio)
		}
		lat := func(v float64) string {
			if r.Workload == "footprint" || (r.Calls == 0 && r.Workload != "mixed-e2e") {
				return "-"
			}
			return fmt.Sprintf("%.3f", v)
		}
		opt := func(p *float64) string {
			if p == nil {
				return "-"
			}
			return fmt.Sprintf("%.0f", *p)
		}
		note := r.Note
		if r.Errors > 0 {
			note = joinNote(fmt.Sprintf("%d errors", r.Errors), note)
		}
		fmt.Fprintf(out, "%-8s %-10s %4d %-17s %7d %9.0f %8s %8s %8s %7s %9s %9s  %s\n",
			r.Pass, r.Workload, r.Concurrency, r.Server+"/"+r.Way, r.Jobs, r.JobsPerSec,
			lat(r.P50Ms), lat(r.P99Ms), lat(r.P999Ms), ratio, opt(r.MemBytesPerJob), opt(r.FileBytesPerJob), note)
	}
}

// report is the JSON file's content.
type report struct {
	Started  time.Time `json:"started"`
	Settings any       `json:"settings"`
	Notes    []string  `json:"notes"`
	Results  []*result `json:"results"`
	// BigValue is the big-value part (-big-value): one large SET per server.
	BigValue []*bigResult `json:"big_value,omitempty"`
	// Cluster is the cluster part (-cluster): qlessd alone and the cluster.
	Cluster []*result `json:"cluster,omitempty"`
	// TLS is the TLS part (-tls): each server in clear and over TLS.
	TLS []*result `json:"tls,omitempty"`
	// Restart is the restart part (-restart-jobs).
	Restart *restartResult `json:"restart,omitempty"`
	// ClientView is the client view's table, ClientViewCells its cells.
	ClientView      []*clientLine `json:"client_view,omitempty"`
	ClientViewCells []*result     `json:"client_view_cells,omitempty"`
}

func writeJSON(path string, rep report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func indent(lines []string) string {
	return "  " + strings.Join(lines, "\n  ")
}

// medianRounds keeps, for each line run in several rounds, the round with
// the median jobs/s (footprint: bytes of memory per job; with an even
// number of rounds the lower middle one), whole: its latencies and notes
// are that round's. A dip in the machine's speed lasting tens of seconds
// then moves no line.
func medianRounds(results []*result, rounds int) []*result {
	if rounds <= 1 {
		return results
	}
	type key struct {
		pass, workload string
		conc           int
		server, way    string
	}
	groups := map[key][]*result{}
	var order []key
	for _, r := range results {
		k := key{r.Pass, r.Workload, r.Concurrency, r.Server, r.Way}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	figure := func(r *result) float64 {
		if r.Workload == "footprint" && r.MemBytesPerJob != nil {
			return *r.MemBytesPerJob
		}
		return r.JobsPerSec
	}
	out := make([]*result, 0, len(order))
	for _, k := range order {
		g := groups[k]
		slices.SortStableFunc(g, func(a, b *result) int {
			switch fa, fb := figure(a), figure(b); {
			case fa < fb:
				return -1
			case fa > fb:
				return 1
			}
			return 0
		})
		m := g[(len(g)-1)/2]
		if len(g) > 1 {
			m.Note = joinNote(m.Note, fmt.Sprintf("median of %d rounds (%.0f-%.0f)", len(g), figure(g[0]), figure(g[len(g)-1])))
		}
		out = append(out, m)
	}
	return out
}

// printClusterTable prints the cluster part: a line per cell, qlessd alone
// and the cluster side by side, and the cluster's jobs/s over qlessd's.
func printClusterTable(out io.Writer, results []*result, cfg *config) {
	n := cfg.cluster
	fmt.Fprintf(out, "cluster: qlessd alone (x1) against %d qlessd nodes on hashicorp/raft over loopback (x%d), clients at the leader;\n", n, n)
	fmt.Fprintf(out, "native QLESS, fresh servers per pass, the same flags and appendfsync on every node; latency per call in ms\n")
	fmt.Fprintf(out, "%-8s %-10s %4s %9s %8s %8s %9s %8s %8s %6s  %s\n",
		"fsync", "workload", "conc", "x1 jobs/s", "x1 p50", "x1 p99",
		fmt.Sprintf("x%d jobs/s", n), fmt.Sprintf("x%d p50", n), fmt.Sprintf("x%d p99", n), fmt.Sprintf("x%d/x1", n), "note")
	type key struct {
		pass, workload string
		conc           int
	}
	pairs := map[key][2]*result{}
	var order []key
	for _, r := range results {
		k := key{r.Pass, r.Workload, r.Concurrency}
		p, seen := pairs[k]
		if !seen {
			order = append(order, k)
		}
		if r.Server == "qlessd" {
			p[0] = r
		} else {
			p[1] = r
		}
		pairs[k] = p
	}
	for _, k := range order {
		p := pairs[k]
		cols := func(r *result) (jobs, p50, p99, note string) {
			if r == nil {
				return "-", "-", "-", ""
			}
			note = r.Note
			if r.Errors > 0 {
				note = joinNote(fmt.Sprintf("%d errors", r.Errors), note)
			}
			if r.Calls == 0 && r.Workload != "mixed-e2e" {
				return fmt.Sprintf("%.0f", r.JobsPerSec), "-", "-", note
			}
			return fmt.Sprintf("%.0f", r.JobsPerSec), fmt.Sprintf("%.3f", r.P50Ms), fmt.Sprintf("%.3f", r.P99Ms), note
		}
		j1, a1, b1, n1 := cols(p[0])
		jn, an, bn, nn := cols(p[1])
		ratio := "-"
		if p[1] != nil && p[1].OverOneNode != nil {
			ratio = fmt.Sprintf("%.2f", *p[1].OverOneNode)
		}
		note := ""
		if n1 != "" {
			note = joinNote(note, "x1: "+n1)
		}
		if nn != "" {
			note = joinNote(note, fmt.Sprintf("x%d: %s", n, nn))
		}
		line := fmt.Sprintf("%-8s %-10s %4d %9s %8s %8s %9s %8s %8s %6s  %s",
			k.pass, k.workload, k.conc, j1, a1, b1, jn, an, bn, ratio, note)
		fmt.Fprintln(out, strings.TrimRight(line, " "))
	}
}
