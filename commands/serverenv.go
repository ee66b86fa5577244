package commands

import "time"

// ServerEnv is what the server-management commands (INFO, CONFIG, SHUTDOWN,
// CONFIG RESETSTAT) need from the running server.
type ServerEnv interface {
	ServerStats() ServerStats
	// ResetStats zeroes the counters CONFIG RESETSTAT resets.
	ResetStats()
	// ConfigValues returns every CONFIG parameter the server has, by name,
	// formatted as CONFIG GET replies with it.
	ConfigValues() map[string]string
	// SetConfig applies one parameter that the command has already
	// validated (see configParams).
	SetConfig(name, value string) error
	// ConfigFile is the absolute path of the configuration file the server
	// started with, or "" when it started without one.
	ConfigFile() string
	// Shutdown stops the server gracefully in the background, saving first
	// when save is true. It returns an error only when saving failed.
	Shutdown(save bool) error
}

// ServerStats is a snapshot of the server for INFO.
type ServerStats struct {
	Version          string // qlessd's own version
	RunID            string
	Port             int
	Executable       string
	Started          time.Time
	ConnectedClients int
	BlockedClients   int
	MaxClients       int
	TotalConnections int64
	RejectedConns    int64 // refused for maxclients
	TotalCommands    int64
}
