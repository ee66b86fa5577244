// Package server speaks RESP, from an epoll event loop (loop.go) or from a
// goroutine per connection (own_conn.go): connections, dispatch into the command
// table, authentication, pub/sub, blocking waits and client sessions. It
// holds no data logic.
package server

import (
	"log/slog"
	"time"

	"github.com/qlessd/qlessd/store"
	"github.com/qlessd/qlessd/tlsconf"
)

// Config holds the server settings, named after redis-server's.
type Config struct {
	Bind          string
	Port          int
	Dir           string
	AppendFsync   store.Sync
	RequirePass   string
	Databases     int
	ProtectedMode bool
	MaxClients    int
	// ProtoMaxBulkLen is proto-max-bulk-len, the longest argument a client
	// may send; 0 means Redis's default, 512mb.
	ProtoMaxBulkLen int64
	// ClientQueryBufferLimit is client-query-buffer-limit: a client whose
	// unfinished command holds more is closed; 0 means Redis's 1gb.
	ClientQueryBufferLimit int64
	Timeout                time.Duration // idle client timeout, 0 for none
	LuaTimeLimit           time.Duration
	// LuaMaxMemory is lua-max-memory: the memory one script call may
	// take, in bytes (0: no ceiling).
	LuaMaxMemory int64
	Logger       *slog.Logger
	Version      string
	// PubSubLimit is client-output-buffer-limit for subscribers; nil means
	// Redis's default (32mb hard, 8mb for 60s soft).
	PubSubLimit *OutputLimit
	// AOFRewrite is auto-aof-rewrite-percentage and -min-size; nil means
	// Redis's defaults (100, 64mb).
	AOFRewrite *store.RewriteSettings
	LogLevel   string // as given, for CONFIG GET loglevel
	// LogLevels, when set, is the logger's level, which CONFIG SET
	// loglevel changes.
	LogLevels *slog.LevelVar
	// Settings is every configuration parameter's value as the server
	// started with it, normalized as CONFIG GET gives it; CONFIG GET lists
	// them, those that change at run time with their current value.
	Settings map[string]string
	// ConfigFile is the absolute path of the configuration file, for
	// CONFIG REWRITE; "" when the server started without one.
	ConfigFile string
	Save       string // accepted for CONFIG compatibility; the AOF is always on
	// EventLoop serves connections from one goroutine over epoll (loop.go)
	// instead of one goroutine per connection.
	EventLoop bool
	// EventLoops is how many loops share the connections (1 when unset).
	EventLoops int
	// IOUring lets each loop do a turn's socket reads, and its writes, in
	// one io_uring call where the kernel allows it.
	IOUring bool
	// TLSPort is tls-port: TLS clients are served there (0: none). With
	// TLSPort set, Port 0 means no plain listener, as in Redis.
	TLSPort int
	// TLS is the TLS material, which CONFIG SET of a tls-* parameter
	// reloads; nil when TLS is off (no tls-port, no tls-replication).
	TLS *tlsconf.Holder
	// HTTPAddr is the HTTP listener's address, for CONFIG GET http-addr
	// (the listener itself is httpd's).
	HTTPAddr string
	// HTTPAllowedHosts is http-allowed-hosts, normalized: the Host names the
	// HTTP listener answers besides its own (httpd reads it per request).
	HTTPAllowedHosts string
}
