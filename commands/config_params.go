package commands

import (
	"math"
	"strconv"
	"strings"
)

// ConfigParam is one configuration parameter. The one table of them serves
// the command line, the configuration file, CONFIG GET, CONFIG SET and
// CONFIG REWRITE, so a parameter exists in all of them or in none. The
// values themselves live in the server (Env.ConfigValues).
type ConfigParam struct {
	Name string
	// Default is the value as a file writes it; Check normalizes it.
	Default string
	Kind    ConfigKind
	Enum    []string // KindEnum
	Min     int64    // KindInt, KindMemory
	Max     int64
	// Mutable parameters change at run time with CONFIG SET; the others
	// take the value the server started with.
	Mutable bool
	Help    string // one line, for --help and the example configuration file
}

// ConfigKind is the syntax of a parameter's value.
type ConfigKind int

// The kinds of parameter values.
const (
	KindString ConfigKind = iota
	KindBool              // yes or no
	KindInt
	KindEnum
	KindSave   // pairs of <seconds> <changes>, or ""
	KindMemory // bytes, with an optional unit (ParseMemory)
	// KindOutputLimit is client-output-buffer-limit: groups of
	// <class> <hard> <soft> <soft seconds>.
	KindOutputLimit
	// KindHostList is http-allowed-hosts: host names (SplitHostList).
	KindHostList
)

// The parameters, in the order CONFIG GET lists them.
var configParams = []ConfigParam{
	{Name: "acl-log-max-len", Default: "128", Kind: KindInt, Max: math.MaxInt64, Mutable: true,
		Help: "ACL LOG entries kept"},
	{Name: "aclfile", Help: "file of ACL users, read at start and by ACL LOAD, written by ACL SAVE; users outlive a restart only there"},
	{Name: "appendfsync", Default: "everysec", Kind: KindEnum, Enum: []string{"everysec", "always", "no"}, Mutable: true,
		Help: "when writes reach the disk: always (before the reply), everysec or no (the kernel decides)"},
	{Name: "appendonly", Default: "yes", Kind: KindBool, Mutable: true,
		Help: "accepted as Redis names it; qlessd always keeps its append-only data file, so only yes"},
	{Name: "auto-aof-rewrite-min-size", Default: "64mb", Kind: KindMemory, Max: math.MaxInt64, Mutable: true,
		Help: "no automatic rewrite of the data file while it is smaller than this"},
	{Name: "auto-aof-rewrite-percentage", Default: "100", Kind: KindInt, Max: math.MaxInt32, Mutable: true,
		Help: "rewrite the data file once it grew by this percentage since the last rewrite (0: never)"},
	{Name: "bind", Default: "127.0.0.1", Mutable: true, Help: "address to listen on (CONFIG SET moves the listeners there)"},
	{Name: "client-output-buffer-limit", Default: "normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60", Kind: KindOutputLimit,
		Help: "<class> <hard> <soft> <soft seconds>: qlessd applies the pubsub class"},
	{Name: "client-query-buffer-limit", Default: "1gb", Kind: KindMemory, Min: 1 << 20, Max: math.MaxInt64, Mutable: true,
		Help: "close a client whose unfinished command holds more than this"},
	{Name: "cluster-advertise-client", Help: "host:port the other cluster nodes relay clients to while this node leads (default: bind:port)"},
	{Name: "cluster-bind", Help: "host:port of this node's Raft transport (cluster mode)"},
	{Name: "cluster-follower-reads", Default: "no", Kind: KindBool,
		Help: "a follower serves its clients itself, refusing writes as a read-only replica, instead of relaying them to the leader"},
	{Name: "cluster-heartbeat-timeout", Default: "1000", Kind: KindInt, Min: 50, Max: 60000,
		Help: "ms without the leader before a follower starts an election; a leader without a majority for as long steps down, and its read lease is half of it"},
	{Name: "cluster-node-id", Help: "this node's id: cluster mode on hashicorp/raft when set (off when empty)"},
	{Name: "cluster-peers", Help: "id=host:port,... of every member's Raft address, to bootstrap a new cluster"},
	{Name: "cluster-snapshot-threshold", Default: "8192", Kind: KindInt, Min: 1, Max: math.MaxInt32,
		Help: "log entries since the last snapshot that start the next one"},
	{Name: "cluster-trailing-logs", Default: "10240", Kind: KindInt, Min: 1, Max: math.MaxInt32,
		Help: "log entries kept after a snapshot, for followers that fall a little behind"},
	{Name: "databases", Default: "16", Kind: KindInt, Min: 1, Max: 256, Help: "number of databases"},
	{Name: "debug-addr", Help: "serve Go's pprof profiles over HTTP on this address, unauthenticated (off when empty)"},
	{Name: "dir", Default: "./qlessd-data", Help: "data directory, created if missing"},
	{Name: "event-loop", Default: "yes", Kind: KindBool,
		Help: "serve connections from event loops (yes) or from one goroutine each (no)"},
	{Name: "event-loops", Default: "1", Kind: KindInt, Min: 1, Max: 1024, Help: "event loops sharing the connections"},
	{Name: "gc-min-heap", Default: "16mb", Kind: KindMemory, Max: math.MaxInt64,
		Help: "lowest heap size the Go collector aims for; a small store then collects less often (0: Go's default)"},
	{Name: "http-addr", Default: "127.0.0.1:7480",
		Help: "serve the dashboard at / and Prometheus metrics at /metrics over HTTP on this address (off when empty; unset: 127.0.0.1, port + 1101)"},
	{Name: "http-admin", Default: "auto", Kind: KindEnum, Enum: []string{"auto", "yes", "no"},
		Help: "allow the dashboard's actions (retry, cancel, pause...): auto allows them on a loopback listener only"},
	{Name: "http-allowed-hosts", Kind: KindHostList, Mutable: true,
		Help: "Host names the HTTP listener answers besides its own address, localhost, 127.0.0.1 and [::1] (space or comma separated, name or name:port, * for any); others get 421"},
	{Name: "http-auth", Default: "password", Kind: KindEnum, Enum: []string{"password", "loopback-trusted"},
		Help: "with requirepass set, the dashboard and /metrics ask for it on every listener (password: a login form, or HTTP Basic), or on a loopback listener not at all (loopback-trusted)"},
	{Name: "http-tls", Default: "yes", Kind: KindBool,
		Help: "serve HTTPS on http-addr with the TLS certificate when tls-port is set (no: plain HTTP)"},
	{Name: "http-tls-auth-clients", Default: "no", Kind: KindEnum, Enum: []string{"no", "yes", "optional"},
		Help: "HTTPS clients (browsers, Prometheus) must present a certificate the CA signed (yes), may (optional), or are not asked for one (no)"},
	{Name: "http-user", Default: "default",
		Help: "ACL user the dashboard logs in as: it shows and serves only the actions that user may run"},
	{Name: "io-uring", Default: "yes", Kind: KindBool,
		Help: "event loops read and write a turn's sockets in one io_uring call where the kernel allows (yes) or one system call each (no)"},
	{Name: "logfile", Help: "file the log is appended to (empty: standard error)"},
	{Name: "loglevel", Default: "notice", Kind: KindEnum, Enum: []string{"debug", "verbose", "notice", "warning"}, Mutable: true,
		Help: "least important log lines written: debug, verbose, notice or warning"},
	{Name: "latency-monitor-threshold", Default: "0", Kind: KindInt, Max: math.MaxInt64, Mutable: true,
		Help: "LATENCY samples events of at least this many milliseconds (0: off)"},
	{Name: "lua-max-memory", Default: "256mb", Kind: KindMemory, Max: math.MaxInt64, Mutable: true,
		Help: "memory one script call may take; past it the script fails with \"not enough memory\" (0: no ceiling)"},
	{Name: "lua-readonly-tables", Default: "no", Kind: KindBool,
		Help: "make Lua's standard library tables read-only as Redis 7.0 does (stock qless-core then fails)"},
	{Name: "lua-time-limit", Default: "5000", Kind: KindInt, Max: math.MaxInt64, Mutable: true,
		Help: "milliseconds a script or qless call runs before other clients get BUSY (0: no limit)"},
	{Name: "maxclients", Default: "10000", Kind: KindInt, Min: 1, Max: math.MaxUint32, Mutable: true,
		Help: "maximum simultaneous clients"},
	{Name: "native-client-scripts", Default: "yes", Kind: KindBool,
		Help: "serve the qless.lua builds that qless client libraries send with qlessd's native qless"},
	{Name: "port", Default: "6379", Kind: KindInt, Max: 65535, Mutable: true,
		Help: "TCP port (0: any free port, or none when tls-port is set); CONFIG SET moves the listener, not the HTTP one"},
	{Name: "proto-max-bulk-len", Default: "512mb", Kind: KindMemory, Min: 1 << 20, Max: math.MaxInt64, Mutable: true,
		Help: "longest argument a client may send"},
	{Name: "protected-mode", Default: "yes", Kind: KindBool, Mutable: true,
		Help: "refuse clients from beyond loopback while no password is set"},
	{Name: "requirepass", Mutable: true, Help: "password clients must AUTH with (empty: none)"},
	{Name: "save", Kind: KindSave, Mutable: true,
		Help: "accepted as Redis names it; qlessd writes every change to its data file instead of snapshots"},
	{Name: "slowlog-log-slower-than", Default: "10000", Kind: KindInt, Min: -1, Max: math.MaxInt64, Mutable: true,
		Help: "SLOWLOG keeps commands that ran at least this many microseconds (-1: none, 0: all)"},
	{Name: "slowlog-max-len", Default: "128", Kind: KindInt, Max: math.MaxInt64, Mutable: true,
		Help: "SLOWLOG entries kept"},
	{Name: "syslog-enabled", Default: "no", Kind: KindBool, Help: "also send the log to the system log"},
	{Name: "syslog-ident", Default: "qlessd", Help: "program name the system log shows"},
	{Name: "tls-auth-clients", Default: "yes", Kind: KindEnum, Enum: []string{"no", "yes", "optional"}, Mutable: true,
		Help: "TLS clients must present a certificate the CA signed (yes), may (optional), or are not asked for one (no)"},
	{Name: "tls-ca-cert-dir", Mutable: true, Help: "directory of CA certificates that client and peer certificates are checked against"},
	{Name: "tls-ca-cert-file", Mutable: true, Help: "file of CA certificates that client and peer certificates are checked against"},
	{Name: "tls-cert-file", Mutable: true, Help: "the server's X.509 certificate (PEM), re-read on CONFIG SET"},
	{Name: "tls-ciphers", Mutable: true, Help: "TLS 1.2 cipher suites, OpenSSL's names separated by colons (empty: Go's defaults)"},
	{Name: "tls-ciphersuites", Mutable: true, Help: "TLS 1.3 suites, checked as Redis does; Go always offers its three safe ones"},
	{Name: "tls-key-file", Mutable: true, Help: "the private key of tls-cert-file (PEM), re-read on CONFIG SET"},
	{Name: "tls-key-file-pass", Mutable: true, Help: "passphrase of tls-key-file when it is encrypted"},
	{Name: "tls-port", Default: "0", Kind: KindInt, Max: 65535, Mutable: true,
		Help: "TCP port for TLS clients (0: none); with port 0 only TLS clients are served"},
	{Name: "tls-prefer-server-ciphers", Default: "no", Kind: KindBool, Mutable: true,
		Help: "accepted as Redis names it; Go's server always picks the suite"},
	{Name: "tls-protocols", Mutable: true, Help: "TLS versions served, among TLSv1 TLSv1.1 TLSv1.2 TLSv1.3 (empty: TLSv1.2 TLSv1.3)"},
	{Name: "tls-replication", Default: "no", Kind: KindBool,
		Help: "cluster nodes talk to each other (Raft, relayed clients) over mutual TLS with tls-cert-file and the CA"},
	{Name: "timeout", Default: "0", Kind: KindInt, Max: math.MaxInt32, Mutable: true,
		Help: "close a client idle for this many seconds (0: never)"},
}

// HTTPPortOffset puts the HTTP listener, unless http-addr is set, at the
// client port plus this (7480 for 6379), as Redis's cluster bus port
// follows its client port: a second instance given only another port
// does not fail on the first one's HTTP port.
const HTTPPortOffset = 1101

// DefaultHTTPAddr is http-addr when it is not set, for client port port
// (as CONFIG GET gives it): loopback, port + HTTPPortOffset, or any free
// port when port is 0. ok is false when that would pass 65535.
func DefaultHTTPAddr(port string) (addr string, ok bool) {
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n+HTTPPortOffset > 65535 {
		return "", false
	}
	if n > 0 {
		n += HTTPPortOffset
	}
	return "127.0.0.1:" + strconv.Itoa(n), true
}

// ConfigParams returns every parameter, in CONFIG GET's order.
func ConfigParams() []ConfigParam { return configParams }

// FindConfigParam returns the parameter name (in any case), or nil.
func FindConfigParam(name string) *ConfigParam {
	for i := range configParams {
		if strings.EqualFold(configParams[i].Name, name) {
			return &configParams[i]
		}
	}
	return nil
}

// DefaultValue is the parameter's default, normalized as Check returns it.
func (p *ConfigParam) DefaultValue() string {
	v, _ := p.Check(p.Default)
	return v
}

// FromArgs turns the arguments of a directive (a line of the file, or a
// --name and the words after it) into one value: a parameter that takes
// several words joins them; a yes/no one written alone means yes, as a
// switch on the command line does; any other takes exactly one word. ok
// is false for a wrong number of words.
func (p *ConfigParam) FromArgs(args []string) (value string, ok bool) {
	switch {
	case p.Kind == KindSave || p.Kind == KindOutputLimit || p.Kind == KindHostList:
		return strings.Join(args, " "), true
	case p.Kind == KindBool && len(args) == 0:
		return "yes", true
	case len(args) == 1:
		return args[0], true
	}
	return "", false
}

// Merge is the value once a directive with value next follows one that
// gave old: as redis.conf reads them, save lines add up (an empty one
// clears them), as do client-output-buffer-limit lines, class by class;
// for any other parameter the later one wins. Both values are normalized.
func (p *ConfigParam) Merge(old, next string) string {
	switch p.Kind {
	case KindSave:
		if next == "" || old == "" {
			return next
		}
		return old + " " + next
	case KindOutputLimit:
		limits, _ := parseOutputLimits(old, nil)
		limits, _ = parseOutputLimits(next, limits)
		return formatOutputLimits(limits)
	}
	return next
}
