package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/qlessd/qlessd/internal/qlessbuilds"
	"github.com/qlessd/qlessd/qless"
)

// The client view is the shape issue 42 measures from outside: this
// program's plain RESP client, one connection per worker, no pipelining,
// 100-byte job data, appendfsync everysec; put, then pop of one job and its
// complete, then heartbeat. Each binding's own qless.lua runs by EVALSHA on
// qlessd beside Redis 7.0 running the same script, and QLESS beside Redis
// running qless-py's; both sides of a ratio are measured in the same
// round, seconds apart. Rounds differ by up to 40% on a shared machine, so
// the figure is the median of the rounds' ratios.

// clientBuilds are the bindings' builds the client view runs, by their
// qless-core commit (qless.Profiles); QLESS is compared with the first.
var clientBuilds = []string{"13cf415", "35674dc", "a72cf28"}

var clientWorkloads = []string{"put", "pop1", "heartbeat"}

// clientLine is one line of the client view: one way at one concurrency
// and workload, over every round.
type clientLine struct {
	Binding     string  `json:"binding"` // as qless.Profiles names it; "QLESS" for the native command
	Build       string  `json:"build"`   // qless-core commit of the script on both servers (QLESS: Redis's)
	Workload    string  `json:"workload"`
	Concurrency int     `json:"concurrency"`
	Rounds      int     `json:"rounds"`
	QlessdJobs  float64 `json:"qlessd_jobs_per_sec"` // median over rounds
	RedisJobs   float64 `json:"redis_jobs_per_sec"`
	QlessdP99Ms float64 `json:"qlessd_p99_ms"` // median over rounds
	RedisP99Ms  float64 `json:"redis_p99_ms"`
	QlessdCPUUs float64 `json:"qlessd_cpu_us_per_job"` // server CPU per job, median over rounds
	RedisCPUUs  float64 `json:"redis_cpu_us_per_job"`
	Ratio       float64 `json:"ratio"` // median of the rounds' qlessd/Redis jobs/s
	RatioMin    float64 `json:"ratio_min"`
	RatioMax    float64 `json:"ratio_max"`
}

// runClientView runs cfg.clientRounds rounds of the client view, every
// build's pair of servers in turn within a round, and returns every cell.
func runClientView(cfg *config, note func(string, ...any)) []*result {
	m := qlessbuilds.DefaultMirrors()
	if err := m.Check(); err != nil {
		note("client view skipped: the bindings' scripts are built from git mirrors of qless-core and the Ruby gem ($QLESS_CORE_GIT, $QLESS_GEM_GIT): %v", err)
		return nil
	}
	sources := map[string]scriptSource{}
	for _, b := range clientBuilds {
		text, err := m.Script(b)
		if err != nil {
			sources[b] = scriptSource{reason: err.Error()}
			continue
		}
		if p := profileOf(b); p.SHA != sha1Hex(text) {
			note("client view: build %s has SHA1 %s, not the %s qlessd serves natively", b, sha1Hex(text), p.SHA)
		}
		sources[b] = scriptSource{text: text}
	}
	unavailable := map[string]bool{}
	var out []*result
	for round := 1; round <= cfg.clientRounds && !stopping(); round++ {
		fmt.Fprintf(os.Stderr, "client view: round %d of %d\n", round, cfg.clientRounds)
		for i, b := range clientBuilds {
			pairs := [][2]string{{"qlessd", b}, {"redis", b}}
			if i == 0 {
				pairs = append(pairs, [2]string{"qlessd", "native"})
			}
			var sessions []*session
			for _, p := range pairs {
				if s := startWay(cfg, "everysec", p[0], p[1], sources[p[1]], unavailable, note); s != nil {
					sessions = append(sessions, s)
				}
			}
			rs := runCells(sessions, "everysec", round+i, cfg.clientConc, clientWorkloads)
			for _, r := range rs {
				r.Round = round
			}
			out = append(out, rs...)
			for _, s := range sessions {
				s.srv.stop()
			}
			if stopping() {
				break
			}
		}
	}
	return out
}

func profileOf(build string) qless.Profile {
	for _, p := range qless.Profiles {
		if p.Build == build {
			return p
		}
	}
	return qless.Profile{}
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// clientLines pairs each qlessd cell with its round's Redis cell running
// the same script (QLESS: the first build's) and takes medians over rounds.
func clientLines(results []*result) []*clientLine {
	type key struct {
		server, way, workload string
		conc, round           int
	}
	cells := map[key]*result{}
	for _, r := range results {
		cells[key{r.Server, r.Way, r.Workload, r.Concurrency, r.Round}] = r
	}
	type lineKey struct {
		way, workload string
		conc          int
	}
	groups := map[lineKey][][2]*result{}
	for _, r := range results {
		if r.Server != "qlessd" || r.JobsPerSec == 0 {
			continue
		}
		ref := r.Way
		if ref == "native" {
			ref = clientBuilds[0]
		}
		red := cells[key{"redis", ref, r.Workload, r.Concurrency, r.Round}]
		if red == nil || red.JobsPerSec == 0 {
			continue
		}
		k := lineKey{r.Way, r.Workload, r.Concurrency}
		groups[k] = append(groups[k], [2]*result{r, red})
	}
	var out []*clientLine
	for _, conc := range concsOf(results) {
		for _, way := range append(slices.Clone(clientBuilds), "native") {
			for _, wl := range clientWorkloads {
				if g := groups[lineKey{way, wl, conc}]; len(g) > 0 {
					out = append(out, clientLineOf(way, wl, conc, g))
				}
			}
		}
	}
	return out
}

func concsOf(results []*result) []int {
	var out []int
	for _, r := range results {
		if !slices.Contains(out, r.Concurrency) {
			out = append(out, r.Concurrency)
		}
	}
	return out
}

func clientLineOf(way, wl string, conc int, pairs [][2]*result) *clientLine {
	l := &clientLine{Binding: "QLESS", Build: clientBuilds[0], Workload: wl, Concurrency: conc, Rounds: len(pairs)}
	if way != "native" {
		l.Binding, l.Build = profileOf(way).Shipped, way
	}
	var ratios, qj, rj, qp, rp, qc, rc []float64
	for _, p := range pairs {
		ratios = append(ratios, p[0].JobsPerSec/p[1].JobsPerSec)
		qj, rj = append(qj, p[0].JobsPerSec), append(rj, p[1].JobsPerSec)
		qp, rp = append(qp, p[0].P99Ms), append(rp, p[1].P99Ms)
		qc, rc = append(qc, p[0].CPUUsPerJob), append(rc, p[1].CPUUsPerJob)
	}
	l.Ratio, l.QlessdJobs, l.RedisJobs = median(ratios), median(qj), median(rj)
	l.QlessdP99Ms, l.RedisP99Ms = median(qp), median(rp)
	l.QlessdCPUUs, l.RedisCPUUs = median(qc), median(rc)
	l.RatioMin, l.RatioMax = slices.Min(ratios), slices.Max(ratios)
	return l
}

// median is the middle value, the mean of the two middle ones for an even
// count.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func printClientView(out io.Writer, lines []*clientLine, rounds int) {
	fmt.Fprintln(out, "client view (issue 42): a plain Go RESP client, one connection per worker, no pipelining, 100-byte job")
	fmt.Fprintln(out, "data, appendfsync everysec; put, then pop (count 1) + complete, then heartbeat. Each binding's stock qless.lua")
	fmt.Fprintln(out, "by EVALSHA on qlessd beside Redis 7.0 + the same script in the same round; QLESS beside Redis + 13cf415.")
	fmt.Fprintf(out, "jobs/s and p99 (per call, ms): medians of %d rounds; q/redis: the median of the rounds' ratios (their range);\n", rounds)
	fmt.Fprintln(out, "cpu: each server's CPU time per job in microseconds (all its threads), median: it moves less with the machine's load")
	fmt.Fprintf(out, "%-18s %4s %-10s %9s %8s %9s %8s %7s  %-11s %6s %6s\n",
		"binding", "conc", "workload", "qlessd/s", "p99", "redis/s", "p99", "q/redis", "range", "q cpu", "r cpu")
	prev := -1
	for _, l := range lines {
		if prev != -1 && l.Concurrency != prev {
			fmt.Fprintln(out)
		}
		prev = l.Concurrency
		fmt.Fprintf(out, "%-18s %4d %-10s %9.0f %8.3f %9.0f %8.3f %6.2fx  %-11s %6.1f %6.1f\n",
			l.Binding, l.Concurrency, l.Workload, l.QlessdJobs, l.QlessdP99Ms, l.RedisJobs, l.RedisP99Ms,
			l.Ratio, fmt.Sprintf("%.2f-%.2f", l.RatioMin, l.RatioMax), l.QlessdCPUUs, l.RedisCPUUs)
	}
}
