package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/store"
)

// Server-management parts of commands.Env: INFO, CONFIG and SHUTDOWN.

// runID identifies this process in INFO, as Redis's run_id does.
var runID = func() string {
	b := make([]byte, 20)
	rand.Read(b)
	return hex.EncodeToString(b)
}()

// ServerStats implements commands.ServerEnv.
func (s *Server) ServerStats() commands.ServerStats {
	exe, _ := os.Executable()
	s.mu.Lock()
	clients := len(s.sessions)
	maxClients := s.cfg.MaxClients
	s.mu.Unlock()
	blocked := s.waiters.blocked()
	port := s.lns.plainPort(s.cfg.Port)
	return commands.ServerStats{
		Version:          s.cfg.Version,
		RunID:            runID,
		Port:             port,
		Executable:       exe,
		Started:          s.started,
		ConnectedClients: clients,
		BlockedClients:   blocked,
		MaxClients:       maxClients,
		TotalConnections: s.counts.conns.Load(),
		RejectedConns:    s.counts.rejected.Load(),
		TotalCommands:    s.counts.commands.Load(),
	}
}

// ResetStats implements commands.ServerEnv.
func (s *Server) ResetStats() {
	s.counts.reset()
	s.table.Stats().Reset()
}

// serverCounts are INFO stats' totals since start or CONFIG RESETSTAT.
type serverCounts struct {
	conns    atomic.Int64 // total_connections_received
	rejected atomic.Int64 // rejected_connections: refused for maxclients or file descriptors
	commands atomic.Int64 // total_commands_processed
}

func (c *serverCounts) reset() {
	c.conns.Store(0)
	c.rejected.Store(0)
	c.commands.Store(0)
}

// ConfigValues implements commands.ServerEnv.
func (s *Server) ConfigValues() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := s.cfg.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	loglevel := s.cfg.LogLevel
	if loglevel == "" {
		loglevel = "notice"
	}
	pct, minSize := s.db.RewritePolicy()
	out := make(map[string]string, len(s.cfg.Settings)+20)
	for k, v := range s.cfg.Settings {
		out[k] = v
	}
	for k, v := range map[string]string{
		"appendfsync":                 s.db.SyncPolicy().String(),
		"appendonly":                  "yes",
		"auto-aof-rewrite-min-size":   strconv.FormatInt(minSize, 10),
		"auto-aof-rewrite-percentage": strconv.FormatInt(pct, 10),
		"bind":                        s.cfg.Bind,
		"databases":                   strconv.Itoa(s.cfg.Databases),
		"dir":                         dir,
		"http-addr":                   s.cfg.HTTPAddr,
		"http-allowed-hosts":          s.cfg.HTTPAllowedHosts,
		"lua-time-limit":              strconv.FormatInt(s.luaLimits.timeLimit().Milliseconds(), 10),
		"lua-max-memory":              strconv.FormatInt(s.luaLimits.maxMemory(), 10),
		"loglevel":                    loglevel,
		"maxclients":                  strconv.Itoa(s.cfg.MaxClients),
		"port":                        strconv.Itoa(s.cfg.Port),
		"protected-mode":              yesNo(s.cfg.ProtectedMode),
		"requirepass":                 s.cfg.RequirePass,
		"acl-log-max-len":             strconv.FormatInt(s.acl.LogMax.Load(), 10),
		"save":                        s.cfg.Save,
		"timeout":                     strconv.FormatInt(int64(s.cfg.Timeout/time.Second), 10),
	} {
		out[k] = v
	}
	for k, v := range s.atomicParams() {
		out[k] = strconv.FormatInt(v.Load(), 10)
	}
	return out
}

// atomicParams are the integer parameters read on every command (or
// request) without the server lock, by name: CONFIG GET reads them and
// CONFIG SET stores them here, and the configured values start here.
func (s *Server) atomicParams() map[string]*atomic.Int64 {
	return map[string]*atomic.Int64{
		"proto-max-bulk-len": &s.limits.maxBulk, "client-query-buffer-limit": &s.limits.maxQuery,
		"slowlog-log-slower-than": &s.obs.slowlogSlower, "slowlog-max-len": &s.obs.slowlogMax,
		"latency-monitor-threshold": &s.obs.latencyThreshold,
	}
}

// ConfigFile implements commands.ServerEnv.
func (s *Server) ConfigFile() string { return s.cfg.ConfigFile }

// SetConfig implements commands.ServerEnv. Values arrive validated.
func (s *Server) SetConfig(name, value string) error {
	switch name {
	case "appendfsync":
		sync, err := store.ParseSync(value)
		if err != nil {
			return err
		}
		s.db.SetSyncPolicy(sync)
		return nil
	case "auto-aof-rewrite-percentage":
		n, _ := strconv.ParseInt(value, 10, 64)
		s.db.SetRewritePercentage(n)
		return nil
	case "auto-aof-rewrite-min-size":
		n, _ := strconv.ParseInt(value, 10, 64)
		s.db.SetRewriteMinSize(n)
		return nil
	}
	if isTLSParam(name) {
		_, err := s.setTLS([]string{name}, []string{value})
		return err
	}
	switch name {
	case "tls-port":
		return s.setTLSPort(value)
	case "port":
		return s.setPort(value)
	case "bind":
		return s.setBind(value)
	}
	if v := s.atomicParams()[name]; v != nil {
		n, _ := strconv.ParseInt(value, 10, 64)
		v.Store(n)
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch name {
	case "lua-time-limit":
		n, _ := strconv.ParseInt(value, 10, 64)
		limit := time.Duration(n) * time.Millisecond
		s.luaLimits.setTime(limit, s.scripts)
	case "lua-max-memory":
		n, _ := strconv.ParseInt(value, 10, 64)
		s.luaLimits.setMemory(n, s.scripts)
	case "loglevel":
		s.cfg.LogLevel = value
		if s.cfg.LogLevels != nil {
			s.cfg.LogLevels.Set(LogLevel(value))
		}
	case "appendonly":
		// Always yes: the value was checked.
	case "maxclients":
		n, _ := strconv.Atoi(value)
		if n > s.cfg.MaxClients {
			if err := clientsFit(n); err != nil {
				return err
			}
		}
		s.cfg.MaxClients = n
	case "protected-mode":
		s.cfg.ProtectedMode = value == "yes"
	case "http-allowed-hosts":
		s.cfg.HTTPAllowedHosts = value
	case "requirepass":
		s.cfg.RequirePass = value
		s.acl.SetRequirePass(value)
	case "save":
		s.cfg.Save = value
	case "tls-prefer-server-ciphers":
		s.cfg.Settings[name] = value // Go's server always picks the suite
	case "acl-log-max-len":
		n, _ := strconv.ParseInt(value, 10, 64)
		s.acl.LogMax.Store(n)
	case "timeout":
		n, _ := strconv.ParseInt(value, 10, 64)
		s.cfg.Timeout = time.Duration(n) * time.Second
	default:
		return fmt.Errorf("can't set immutable config")
	}
	return nil
}

// Shutdown implements commands.ServerEnv: the server stops in the
// background once the calling command has returned, and main, waiting on
// Done, then waits for the same Close.
func (s *Server) Shutdown(save bool) error {
	if save {
		if err := s.db.Save(); err != nil {
			return err
		}
	}
	if s.scripts != nil {
		// SHUTDOWN NOSAVE past a script's time limit: Redis exits
		// without the script, so no waiting for it here either.
		if done, busyAt := s.scripts.Busy(); done != nil && !time.Now().Before(busyAt) {
			s.life.abandon.Store(true)
		}
	}
	go s.Close()
	return nil
}
