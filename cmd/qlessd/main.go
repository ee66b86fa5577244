// Command qlessd runs the qlessd server: flags, configuration, start and
// graceful stop.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/qless"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/server"
	"github.com/qlessd/qlessd/store"
)

// version is reported by --version and INFO; redis_version stays 7.0.x so
// clients that check it accept us.
const version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(argv []string) int {
	if len(argv) > 0 && argv[0] == "script" {
		fmt.Print(qless.Script())
		return 0
	}
	if len(argv) > 0 && argv[0] == "check" {
		return runCheck(argv[1:], os.Stdout, os.Stderr)
	}
	fs := flag.NewFlagSet("qlessd", flag.ContinueOnError)
	bind := fs.String("bind", "127.0.0.1", "address to listen on")
	port := fs.Int("port", 6379, "TCP port")
	dir := fs.String("dir", "./qlessd-data", "data directory (created if missing)")
	fsync := fs.String("appendfsync", "everysec", "when writes reach the disk: always, everysec or no")
	pass := fs.String("requirepass", "", "password clients must AUTH with")
	dbs := fs.Int("databases", 16, "number of databases (1-256)")
	level := fs.String("loglevel", "notice", "debug, verbose, notice or warning")
	protected := fs.String("protected-mode", "yes", "refuse to listen beyond loopback without a password: yes or no")
	maxClients := fs.Int("maxclients", 10000, "maximum simultaneous clients")
	timeout := fs.Int("timeout", 0, "close idle clients after this many seconds (0 never)")
	maxBulk := fs.String("proto-max-bulk-len", "512mb", "longest argument a client may send (1mb at least)")
	maxQuery := fs.String("client-query-buffer-limit", "1gb", "close a client whose unfinished command holds more than this (1mb at least)")
	rewritePct := fs.String("auto-aof-rewrite-percentage", "100", "rewrite the data file once it grew by this percentage since the last rewrite (0 never)")
	rewriteMin := fs.String("auto-aof-rewrite-min-size", "64mb", "but not while it is smaller than this")
	luaLimit := fs.Int("lua-time-limit", 5000, "milliseconds a script runs before other clients get BUSY (0: no limit)")
	outLimit := fs.String("client-output-buffer-limit", "pubsub 32mb 8mb 60", "subscriber output limit: pubsub <hard> <soft> <soft seconds>")
	luaMaxMemory := fs.String("lua-max-memory", "256mb", "memory one script call may take (its strings, tables and reply); past it the script fails with \"not enough memory\" (0: no ceiling)")
	luaReadonly := fs.Bool("lua-readonly-tables", false, "make Lua's standard library tables read-only as Redis 7.0 does (stock qless-core then fails)")
	gcMinHeap := fs.String("gc-min-heap", "16mb", "lowest heap size the Go collector aims for; a small store then collects less often (0: Go's default)")
	httpAddr := fs.String("http-addr", "127.0.0.1:7480", "serve Prometheus metrics at /metrics over HTTP on this address (off when empty)")
	debugAddr := fs.String("debug-addr", "", "serve Go's pprof profiles over HTTP on this address (off when empty)")
	eventLoop := fs.String("event-loop", "yes", "serve connections from one event loop (yes) or one goroutine each (no)")
	eventLoops := fs.Int("event-loops", 1, "event loops sharing the connections")
	nativeScripts := fs.String("native-client-scripts", "yes", "serve the qless.lua builds that qless client libraries send (qless-py, qless-js, the Ruby gem, qless-core master) with qlessd's native qless: yes or no")
	ioUring := fs.String("io-uring", "yes", "event loops read and write a turn's sockets in one io_uring call where the kernel allows (yes) or one system call each (no)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(argv); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Printf("qlessd v=%s redis_version=7.0.0\n", version)
		return 0
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel(*level)}))
	spareProc()
	minHeap, ok := commands.ParseMemory(*gcMinHeap)
	if !ok {
		logger.Error("gc-min-heap must be a size such as 16mb", "value", *gcMinHeap)
		return 2
	}
	startGCFloor(minHeap)
	sync, err := store.ParseSync(*fsync)
	if err != nil {
		logger.Error(err.Error())
		return 2
	}
	for _, f := range []struct{ name, value string }{
		{"protected-mode", *protected}, {"event-loop", *eventLoop}, {"io-uring", *ioUring},
		{"native-client-scripts", *nativeScripts},
	} {
		if f.value != "yes" && f.value != "no" {
			logger.Error(f.name + " must be yes or no")
			return 2
		}
	}
	var sizes [5]int64 // validated as CONFIG SET does
	for i, f := range []struct{ name, value string }{
		{"auto-aof-rewrite-percentage", *rewritePct}, {"auto-aof-rewrite-min-size", *rewriteMin},
		{"proto-max-bulk-len", *maxBulk}, {"client-query-buffer-limit", *maxQuery},
		{"lua-max-memory", *luaMaxMemory},
	} {
		v, err := commands.CheckConfig(f.name, f.value)
		if err != nil {
			logger.Error(err.Error())
			return 2
		}
		sizes[i], _ = strconv.ParseInt(v, 10, 64)
	}
	pubsubLimit, err := server.ParseOutputLimit(*outLimit)
	if err != nil {
		logger.Error(err.Error())
		return 2
	}
	cfg := server.Config{
		Bind:                   *bind,
		Port:                   *port,
		Dir:                    *dir,
		AppendFsync:            sync,
		RequirePass:            *pass,
		Databases:              *dbs,
		ProtectedMode:          *protected == "yes",
		MaxClients:             *maxClients,
		ProtoMaxBulkLen:        sizes[2],
		ClientQueryBufferLimit: sizes[3],
		Timeout:                time.Duration(*timeout) * time.Second,
		LuaTimeLimit:           time.Duration(*luaLimit) * time.Millisecond,
		LuaMaxMemory:           sizes[4],
		Logger:                 logger,
		Version:                version,
		PubSubLimit:            &pubsubLimit,
		AOFRewrite:             &store.RewriteSettings{Percentage: sizes[0], MinSize: sizes[1]},
		LogLevel:               *level,
		EventLoop:              *eventLoop == "yes",
		EventLoops:             *eventLoops,
		IOUring:                *ioUring == "yes",
		HTTPAddr:               *httpAddr,
	}
	engine := scripts.NewEngine(scripts.Options{TimeLimit: cfg.LuaTimeLimit, Logger: logger, ReadonlyTables: *luaReadonly, MaxMemory: cfg.LuaMaxMemory})
	table := commands.Default()
	commands.RegisterScripting(table, engine)
	if err := qless.Register(table, engine, qless.Options{NativeClientScripts: *nativeScripts == "yes"}); err != nil {
		logger.Error("cannot load the qless scripts", "err", err)
		return 1
	}
	srv, err := server.New(cfg, table)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return 1
	}
	srv.SetBusyCheck(engine.Busy, engine.Announce)
	srv.SetLibraryCalls(engine.IsLibraryCall)
	srv.SetScriptTimeLimit(engine.SetTimeLimit)
	srv.SetScriptMemoryLimit(engine.SetMaxMemory)
	web, err := listenHTTP(*httpAddr, srv, logger)
	if err != nil {
		logger.Error("cannot listen (http-addr)", "err", err)
		srv.Close()
		return 1
	}
	if err := srv.Start(); err != nil {
		logger.Error("cannot listen", "err", err)
		web.Close()
		srv.Close()
		return 1
	}
	serveHTTP(web, logger)
	if *debugAddr != "" {
		serveDebug(*debugAddr, logger)
	}
	logger.Info("qlessd ready to accept connections", "addr", srv.Addr().String(), "dir", *dir, "appendfsync", sync.String(), "gomaxprocs", runtime.GOMAXPROCS(0), "event_loops", srv.EventLoops(), "io_uring", srv.IOUring(), "version", version)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		logger.Info("received signal, shutting down", "signal", s.String())
	case <-srv.Done():
		logger.Info("shutdown requested")
	}
	web.Close()
	if err := srv.Close(); err != nil {
		logger.Error("shutdown", "err", err)
		return 1
	}
	logger.Info("qlessd stopped; data synced")
	return 0
}

func logLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "verbose":
		return slog.LevelDebug + 2
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// spareProc runs one more Go scheduler P than there are CPUs for Go (unless
// GOMAXPROCS is set). Under load every P has goroutines to run (clients
// woken with their replies), and Go only looks for connections with new
// requests when a P runs out of work, or every 10 ms; a spare P mostly
// waits in the network poller and hands ready connections out at once. On
// the 2-CPU benchmark machine this cut p99 latency by about a tenth at
// concurrency 50, with throughput the same or better (README, Performance).
func spareProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
}
