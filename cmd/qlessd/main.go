// Command qlessd runs the qlessd server: flags, configuration, start and
// graceful stop.
package main

import (
	"fmt"
	"github.com/qlessd/qlessd/cluster"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/dashboard"
	"github.com/qlessd/qlessd/httpd"
	"github.com/qlessd/qlessd/qless"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/server"
	"github.com/qlessd/qlessd/store"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// Exit codes of qlessd.
const (
	exitOK     = 0
	exitFailed = 1 // could not start (the data file, the port...) or stop cleanly
	exitUsage  = 2 // the configuration was refused
)

func run(argv []string) int {
	if len(argv) > 0 {
		switch argv[0] {
		case "script":
			fmt.Print(qless.Script())
			return exitOK
		case "check":
			return runCheck(argv[1:], os.Stdout, os.Stderr)
		case "version", "--version", "-v":
			if len(argv) == 1 {
				fmt.Println(versionLine())
				return exitOK
			}
		case "help", "--help", "-h":
			printUsage(os.Stdout)
			return exitOK
		}
	}
	s, file, err := loadSettings(argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qlessd: %v\n", err)
		return exitUsage
	}
	logger, levels, closeLog, err := openLog(s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "qlessd: %v\n", err)
		return exitUsage
	}
	defer closeLog()
	return serve(s, file, logger, levels)
}

// commandTable is the table qlessd serves: Redis's commands, scripting
// and QLESS; server.New adds the server's own (MONITOR, SLOWLOG, LATENCY).
func commandTable(engine *scripts.Engine, nativeClientScripts bool) (*commands.Table, error) {
	table := commands.Default()
	commands.RegisterScripting(table, engine)
	if err := qless.Register(table, engine, qless.Options{NativeClientScripts: nativeClientScripts}); err != nil {
		return nil, err
	}
	return table, nil
}

// serve starts the server the settings describe and runs it until a
// signal or SHUTDOWN.
func serve(s settings, file string, logger *slog.Logger, levels *slog.LevelVar) int {
	spareProc()
	startGCFloor(uint64(s.int("gc-min-heap")))
	cfg := serverConfig(s, file, logger, levels)
	tlsHolder, err := loadTLS(s)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return exitFailed
	}
	cfg.TLS = tlsHolder
	engine := scripts.NewEngine(scripts.Options{TimeLimit: cfg.LuaTimeLimit, Logger: logger,
		ReadonlyTables: s.on("lua-readonly-tables"), MaxMemory: cfg.LuaMaxMemory})
	table, err := commandTable(engine, s.on("native-client-scripts"))
	if err != nil {
		logger.Error("cannot load the qless scripts", "err", err)
		return exitFailed
	}
	logStarting(logger, s, file)
	loadStart := time.Now()
	srv, err := server.New(cfg, table, engine)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return exitFailed
	}
	logLoaded(logger, srv, time.Since(loadStart))
	if err := qless.Start(srv); err != nil {
		logger.Error("cannot read the bound workers", "err", err)
		srv.Close()
		return exitFailed
	}
	node, err := startCluster(srv, s, cfg, logger)
	if err != nil {
		logger.Error("cannot start the cluster node", "err", err)
		srv.Close()
		return exitFailed
	}
	web, err := listenHTTP(s, srv, node, logger)
	if err != nil {
		logger.Error("cannot listen (http-addr)", "err", err)
		node.Close()
		srv.Close()
		return exitFailed
	}
	// pprof listens before the client port, so a started server serves it.
	if addr := s.str("debug-addr"); addr != "" {
		if err := serveDebug(addr, s.str("protected-mode") == "yes", logger); err != nil {
			logger.Error("cannot serve pprof (debug-addr)", "err", err)
			web.Close()
			node.Close()
			srv.Close()
			return exitFailed
		}
		logger.Info("serving pprof", "debug_addr", addr)
	}
	if err := srv.Start(); err != nil {
		logger.Error("cannot listen", "err", err)
		web.Close()
		srv.Close()
		return exitFailed
	}
	dash, err := mountDashboard(web, srv, s)
	if err != nil {
		logger.Error("cannot start the dashboard", "err", err)
		web.Close()
		srv.Close()
		return exitFailed
	}
	serveHTTP(web, logger)
	logger.Info("qlessd ready to accept connections", "addr", srv.Addr().String(), "appendfsync", cfg.AppendFsync.String(),
		"gomaxprocs", runtime.GOMAXPROCS(0), "event_loops", srv.EventLoops(), "io_uring", srv.IOUring())
	if a := srv.TLSAddr(); a != nil {
		logger.Info("serving TLS clients", "tls_addr", a.String(), "plain", !srv.TLSOnly())
	}
	return waitForStop(srv, web, dash, node, logger)
}

// serverConfig is the server's part of the settings.
func serverConfig(s settings, file string, logger *slog.Logger, levels *slog.LevelVar) server.Config {
	sync, _ := store.ParseSync(s.str("appendfsync")) // checked
	pubsub := commands.PubSubOutputLimit(s.str("client-output-buffer-limit"))
	return server.Config{
		Bind:                   s.str("bind"),
		Port:                   int(s.int("port")),
		TLSPort:                int(s.int("tls-port")),
		Dir:                    s.str("dir"),
		AppendFsync:            sync,
		RequirePass:            s.str("requirepass"),
		Databases:              int(s.int("databases")),
		ProtectedMode:          s.on("protected-mode"),
		MaxClients:             int(s.int("maxclients")),
		ProtoMaxBulkLen:        s.int("proto-max-bulk-len"),
		ClientQueryBufferLimit: s.int("client-query-buffer-limit"),
		Timeout:                time.Duration(s.int("timeout")) * time.Second,
		LuaTimeLimit:           time.Duration(s.int("lua-time-limit")) * time.Millisecond,
		LuaMaxMemory:           s.int("lua-max-memory"),
		HTTPAddr:               s.str("http-addr"),
		HTTPAllowedHosts:       s.str("http-allowed-hosts"),
		Logger:                 logger,
		Version:                buildVersion(),
		PubSubLimit: &server.OutputLimit{Hard: clampInt(pubsub.Hard), Soft: clampInt(pubsub.Soft),
			SoftFor: time.Duration(pubsub.SoftSeconds) * time.Second},
		AOFRewrite: &store.RewriteSettings{Percentage: s.int("auto-aof-rewrite-percentage"),
			MinSize: s.int("auto-aof-rewrite-min-size")},
		LogLevel:   s.str("loglevel"),
		LogLevels:  levels,
		Save:       s.str("save"),
		EventLoop:  s.on("event-loop"),
		EventLoops: int(s.int("event-loops")),
		IOUring:    s.on("io-uring"),
		Settings:   s,
		ConfigFile: file,
	}
}

// clampInt is a checked size as an int, the largest one past it.
func clampInt(n uint64) int {
	if n > math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}

func waitForStop(srv *server.Server, web *httpd.Server, dash *dashboard.Dashboard, node *cluster.Node, logger *slog.Logger) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		logger.Info("received signal, shutting down", "signal", s.String())
	case <-srv.Done():
		logger.Info("shutdown requested")
	}
	if dash != nil {
		dash.Close() // ends its live streams, which Shutdown would wait for
	}
	web.Close()
	node.Leave()
	err := srv.Close()
	node.Close()
	if err != nil {
		logger.Error("shutdown", "err", err)
		return exitFailed
	}
	logger.Info("qlessd stopped; data synced")
	return exitOK
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
