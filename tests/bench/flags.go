package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The defaults fit a full run (both servers, every way, both fsync passes)
// in about ten minutes on a 2-core machine: each cell stops at its time cap
// long before 100,000 jobs, and the always pass runs fewer cells.
func parseFlags() (*config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	cfg := &config{}
	fs.StringVar(&cfg.qlessdBin, "qlessd", "", "qlessd binary (default: go build ./cmd/qlessd into a temp dir)")
	fs.StringVar(&cfg.redisBin, "redis-server", os.Getenv("REDIS_SERVER"), "redis-server binary (default: $REDIS_SERVER or redis-server on PATH)")
	fs.StringVar(&cfg.qlessLua, "qless-lua", os.Getenv("QLESS_LUA"), "qless-core's qless.lua (default: $QLESS_LUA); its lines are skipped without it")
	fs.StringVar(&cfg.ourScript, "our-script", "", "file holding qlessd's qless script (default: what `qlessd script` prints)")
	fs.IntVar(&cfg.jobs, "jobs", 100000, "most jobs (heartbeat: calls) per cell")
	fs.DurationVar(&cfg.cellTime, "cell-time", 3*time.Second, "time cap per cell")
	fs.IntVar(&cfg.rounds, "rounds", 1, "run every way this many times, one after another; each line is the round with the median jobs/s")
	fs.DurationVar(&cfg.fillTime, "fill-time", 20*time.Second, "time cap for untimed set-up puts (footprint, refills)")
	fs.IntVar(&cfg.footprintJobs, "footprint-jobs", 10000, "jobs queued to measure memory and data-file bytes per job")
	fs.IntVar(&cfg.backlog, "mixed-backlog", 0, "most jobs waiting in the mixed workload (0: twice the workers)")
	conc := fs.String("conc", "1,8,50", "concurrencies (clients = connections) for the everysec pass")
	alwaysConc := fs.String("always-conc", "1,50", "concurrencies for the always pass")
	work := fs.String("workloads", strings.Join(workloadNames, ","), "workloads for the everysec pass")
	alwaysWork := fs.String("always-workloads", "put,pop1,mixed", "workloads for the always pass")
	passes := fs.String("passes", "everysec,always", "appendfsync settings to run, on both servers")
	servers := fs.String("servers", "redis,qlessd", "servers to run")
	ways := fs.String("ways", "qless.lua,ours,native", "ways to run qless: qless.lua, ours (EVALSHA of qlessd's script), native (QLESS command, qlessd only)")
	fs.IntVar(&cfg.cluster, "cluster", 0, "after the table, compare qlessd alone with a cluster of this many qlessd nodes on loopback (native QLESS, clients at the leader); 0: no cluster part")
	clusterConc := fs.String("cluster-conc", "50", "concurrencies of the cluster part")
	clusterWork := fs.String("cluster-workloads", "put,pop1", "workloads of the cluster part, in every pass")
	clusterArgs := fs.String("cluster-args", "", "more qlessd flags for each cluster node (not the single qlessd), space-separated, e.g. \"--event-loops 2\"")
	clusterOnly := fs.Bool("cluster-only", false, "run only the cluster part (-cluster, 3 if 0): no client view, table, big value, TLS or restart part")
	fs.BoolVar(&cfg.tls, "tls", false, "after the tables, run put and pop1 on qlessd and Redis in clear and over TLS, and print what TLS costs each")
	tlsConc := fs.String("tls-conc", "50", "concurrencies of the TLS part")
	fs.IntVar(&cfg.tlsRounds, "tls-rounds", 5, "rounds of the TLS part, each on fresh servers; the table prints every round and the medians")
	tlsOnly := fs.Bool("tls-only", false, "run only the TLS part (-tls), in the -passes given: no client view, table, big value, cluster or restart part")
	fs.Int64Var(&cfg.bigValue, "big-value", 500_000_000, "after the table, one SET of a value of this many bytes on each server: its time, peak RSS, and RSS after DEL; 0: no such part")
	fs.IntVar(&cfg.restartJobs, "restart-jobs", 0, "after the tables, queue this many jobs on one qlessd, restart it, and print the seconds to ready, MB/s of data file loaded and memory per job; 0: no restart part")
	fs.IntVar(&cfg.clientRounds, "client-rounds", 3, "rounds of the client view, run and printed first: each binding's stock qless.lua and QLESS beside Redis 7.0 + the same script (put, pop1, heartbeat); 0: no client view")
	clientConc := fs.String("client-conc", "1,50", "concurrencies of the client view")
	fs.StringVar(&cfg.jsonPath, "json", "bench-results.json", "where to write the results as JSON")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.conc, err = ints(*conc); err != nil {
		return nil, err
	}
	if cfg.alwaysConc, err = ints(*alwaysConc); err != nil {
		return nil, err
	}
	if cfg.clusterConc, err = ints(*clusterConc); err != nil {
		return nil, err
	}
	if cfg.tlsConc, err = ints(*tlsConc); err != nil {
		return nil, err
	}
	if cfg.clientConc, err = ints(*clientConc); err != nil {
		return nil, err
	}
	cfg.workloads, cfg.alwaysWork = words(*work), words(*alwaysWork)
	cfg.clusterWork = words(*clusterWork)
	cfg.clusterArgs = strings.Fields(*clusterArgs)
	if *clusterOnly {
		*servers, cfg.clientRounds, cfg.bigValue, cfg.restartJobs, cfg.tls = "", 0, 0, 0, false
		if cfg.cluster == 0 {
			cfg.cluster = 3
		}
	}
	if *tlsOnly {
		*servers, cfg.clientRounds, cfg.bigValue, cfg.restartJobs, cfg.cluster, cfg.tls = "", 0, 0, 0, 0, true
	}
	cfg.passes, cfg.servers, cfg.ways = words(*passes), words(*servers), words(*ways)
	if err := checkFlags(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkFlags refuses settings the run cannot use, and finds redis-server
// when the run needs it.
func checkFlags(cfg *config) error {
	for _, w := range cfg.clusterWork {
		if !contains(workloadNames, w) || w == "footprint" {
			return fmt.Errorf("unknown cluster workload %q (footprint is not run on a cluster)", w)
		}
	}
	if cfg.bigValue < 0 || cfg.bigValue > 512<<20 {
		return fmt.Errorf("-big-value must be 0 (no big-value part) or at most 512 MB (proto-max-bulk-len)")
	}
	if cfg.cluster < 0 {
		return fmt.Errorf("-cluster must be 0 (no cluster part) or a node count")
	}
	if err := checkNames(cfg); err != nil {
		return err
	}
	if cfg.jobs <= 0 || cfg.cellTime <= 0 || cfg.rounds <= 0 || cfg.tlsRounds <= 0 || cfg.clientRounds < 0 {
		return fmt.Errorf("-jobs, -cell-time, -rounds and -tls-rounds must be positive, -client-rounds at least 0")
	}
	if (contains(cfg.servers, "redis") || cfg.tls || cfg.clientRounds > 0) && cfg.redisBin == "" {
		var err error
		if cfg.redisBin, err = exec.LookPath("redis-server"); err != nil {
			return fmt.Errorf("redis-server not found (install Redis 7 or pass -redis-server)")
		}
	}
	return nil
}

// checkNames refuses a workload, pass, server or way the bench does not
// know.
func checkNames(cfg *config) error {
	for _, w := range append(append([]string{}, cfg.workloads...), cfg.alwaysWork...) {
		if !contains(workloadNames, w) {
			return fmt.Errorf("unknown workload %q", w)
		}
	}
	for _, p := range cfg.passes {
		if p != "everysec" && p != "always" {
			return fmt.Errorf("unknown pass %q (everysec or always)", p)
		}
	}
	for _, s := range cfg.servers {
		if s != "redis" && s != "qlessd" {
			return fmt.Errorf("unknown server %q", s)
		}
	}
	for _, w := range cfg.ways {
		if !contains([]string{"qless.lua", "ours", "native"}, w) {
			return fmt.Errorf("unknown way %q", w)
		}
	}
	return nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, w := range words(s) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad concurrency %q", w)
		}
		out = append(out, n)
	}
	return out, nil
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Split(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func settings(cfg *config) map[string]any {
	return map[string]any{
		"jobs": cfg.jobs, "cell_time": cfg.cellTime.String(), "fill_time": cfg.fillTime.String(), "rounds": cfg.rounds,
		"footprint_jobs": cfg.footprintJobs, "mixed_backlog": cfg.backlog,
		"concurrency": cfg.conc, "always_concurrency": cfg.alwaysConc,
		"workloads": cfg.workloads, "always_workloads": cfg.alwaysWork,
		"passes": cfg.passes, "servers": cfg.servers, "ways": cfg.ways,
		"qless_lua": cfg.qlessLua, "redis_server": cfg.redisBin,
		"big_value": cfg.bigValue, "cluster": cfg.cluster, "cluster_concurrency": cfg.clusterConc, "cluster_workloads": cfg.clusterWork,
		"tls": cfg.tls, "tls_concurrency": cfg.tlsConc, "tls_rounds": cfg.tlsRounds, "restart_jobs": cfg.restartJobs,
		"client_rounds": cfg.clientRounds, "client_concurrency": cfg.clientConc,
	}
}
