// Command bench compares qlessd with Redis 7 running qless side by side:
// the same qless workloads on both servers, with matching durability,
// through every way of running qless that the servers offer (EVALSHA of
// qless-core's qless.lua, EVALSHA of qlessd's own script, qlessd's native
// QLESS command). It prints one table and writes it as JSON too. It is a
// benchmark, not a test: nothing passes or fails.
//
// Run it from the repository root: make bench ARGS="-qless-lua /path/to/qless.lua".
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

type config struct {
	qlessdBin, redisBin   string
	qlessLua, ourScript   string
	jobs, footprintJobs   int
	cellTime, fillTime    time.Duration
	backlog, rounds       int
	conc, alwaysConc      []int
	workloads, alwaysWork []string
	passes, servers, ways []string
	jsonPath              string
	// cluster is the cluster part's node count (0: no cluster part).
	cluster     int
	clusterConc []int
	clusterWork []string
	clusterArgs []string // more flags for each cluster node
	// tls runs the TLS part: put and pop1 at tlsConc, in clear and over TLS.
	tls       bool
	tlsConc   []int
	tlsRounds int
	// bigValue is the size of the big-value part's SET (0: no such part).
	bigValue int64
	// restartJobs is the restart part's queued jobs (0: no such part).
	restartJobs int
	// clientRounds is the client view's round count (0: no client view),
	// clientConc its concurrencies.
	clientRounds int
	clientConc   []int
}

var interrupted atomic.Bool

// stopping reports that the run was interrupted: cells end early and the
// servers are stopped before the program exits.
func stopping() bool { return interrupted.Load() }

func main() {
	os.Exit(run())
}

func run() int {
	cfg, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	if os.Getenv("GOGC") == "" {
		// The client's live heap is a few megabytes, so Go's default would
		// collect several times a second, and each collection stalls every
		// client at once (see conn): that stall read as server p99.
		debug.SetGCPercent(800)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); interrupted.Store(true) }()
	defer stopAll()

	started := time.Now()
	var notes []string
	note := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		notes = append(notes, s)
		fmt.Fprintln(os.Stderr, "note:", s)
	}
	if cfg.qlessdBin == "" && (contains(cfg.servers, "qlessd") || cfg.cluster > 0 || cfg.tls || cfg.restartJobs > 0 || cfg.clientRounds > 0) || cfg.qlessdBin == "" && cfg.ourScript == "" && contains(cfg.ways, "ours") {
		bin, cleanup, err := buildQlessd()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer cleanup()
		cfg.qlessdBin = bin
	}
	sources := loadSources(cfg, note)

	fmt.Printf("qlessd vs Redis, qless workloads on %d cores (%s); redis: %s\n", runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, redisVersion(cfg.redisBin))
	fmt.Printf("load average at start: %s (the cores are shared: compare lines of one run, not runs)\n", loadAvg())
	fmt.Printf("jobs per cell: up to %d, each cell capped at %s; job data: 100 bytes of JSON\n", cfg.jobs, cfg.cellTime)
	var clientCells []*result
	var client []*clientLine
	if cfg.clientRounds > 0 && !stopping() {
		fmt.Println()
		clientCells = runClientView(cfg, note)
		client = clientLines(clientCells)
		printClientView(os.Stdout, client, cfg.clientRounds)
		fmt.Println()
	}
	if len(cfg.servers) > 0 { // -servers "": the cluster part alone
		for _, p := range cfg.passes {
			c, w := cfg.conc, cfg.workloads
			if p == "always" {
				c, w = cfg.alwaysConc, cfg.alwaysWork
			}
			fmt.Printf("appendfsync %-8s concurrency %v, workloads %s\n", p, c, strings.Join(w, ","))
		}
		fmt.Println("latency is per call (pop+complete workloads: pop and complete calls together); jobs/s counts completed jobs (put: queued; heartbeat, ping: calls)")
		fmt.Println("q/redis: qlessd jobs/s over Redis jobs/s running the same script (native is compared with Redis running qless.lua)")
		fmt.Println("ping: PING and PONG, no script, once per server: the cost of one unpipelined request and reply")
		fmt.Println()
	}

	var results []*result
	unavailable := map[string]bool{}
	for round := 1; round <= cfg.rounds && !stopping(); round++ {
		if cfg.rounds > 1 {
			fmt.Fprintf(os.Stderr, "round %d of %d\n", round, cfg.rounds)
		}
		results = append(results, runRound(cfg, round, sources, unavailable, note)...)
	}
	results = medianRounds(results, cfg.rounds)
	if stopping() {
		note("interrupted: the table is partial")
	}
	setRatios(results)
	sortResults(results)
	if len(cfg.servers) > 0 {
		printTable(os.Stdout, results)
	}
	var big []*bigResult
	if cfg.bigValue > 0 && !stopping() {
		big = runBigValue(cfg, note)
		fmt.Println()
		printBigValue(os.Stdout, big)
	}
	var cluster []*result
	if cfg.cluster > 0 && !stopping() {
		cluster = runCluster(cfg, note)
		if stopping() {
			note("interrupted: the cluster table is partial")
		}
		if len(cfg.servers) > 0 {
			fmt.Println()
		}
		printClusterTable(os.Stdout, cluster, cfg)
	}
	var tlsResults []*result
	if cfg.tls && !stopping() {
		tlsResults = runTLS(cfg, sources, note)
		fmt.Println()
		printTLSTable(os.Stdout, tlsResults)
	}
	var restart *restartResult
	if cfg.restartJobs > 0 && !stopping() {
		restart = runRestart(cfg, note)
		fmt.Println()
		printRestart(os.Stdout, restart)
	}
	if len(notes) > 0 {
		fmt.Printf("\nnotes:\n%s\n", indent(notes))
	}
	fmt.Printf("\ntotal time %s; load average at the end: %s\n", time.Since(started).Round(time.Second), loadAvg())
	rep := report{Started: started.UTC(), Notes: notes, Results: results, BigValue: big, Cluster: cluster, TLS: tlsResults, Restart: restart,
		ClientView: client, ClientViewCells: clientCells, Settings: settings(cfg)}
	if err := writeJSON(cfg.jsonPath, rep); err != nil {
		fmt.Fprintln(os.Stderr, "bench: write json:", err)
		return 1
	}
	fmt.Printf("results written to %s\n", cfg.jsonPath)
	return 0
}

// loadSources reads the scripts the EVALSHA ways run.
func loadSources(cfg *config, note func(string, ...any)) map[string]scriptSource {
	src := map[string]scriptSource{}
	if cfg.qlessLua == "" {
		src["qless.lua"] = scriptSource{reason: "no qless-core qless.lua given (-qless-lua PATH or QLESS_LUA)"}
	} else if b, err := os.ReadFile(cfg.qlessLua); err != nil {
		src["qless.lua"] = scriptSource{reason: err.Error()}
	} else {
		src["qless.lua"] = scriptSource{text: string(b)}
	}
	switch {
	case cfg.ourScript != "":
		if b, err := os.ReadFile(cfg.ourScript); err != nil {
			src["ours"] = scriptSource{reason: err.Error()}
		} else {
			src["ours"] = scriptSource{text: string(b)}
		}
	case contains(cfg.ways, "ours") || cfg.tls:
		if text, err := ourScript(cfg.qlessdBin); err != nil {
			src["ours"] = scriptSource{reason: err.Error()}
		} else {
			src["ours"] = scriptSource{text: text}
		}
	}
	return src
}

func redisVersion(bin string) string {
	if bin == "" {
		return "not run"
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "unknown version"
	}
	return strings.TrimSpace(string(out))
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
