package commands

import "github.com/qlessd/qlessd/store"

// Session is the calling connection as commands see it. The server
// implements it; scripts run with their caller's session.
type Session interface {
	ID() int64
	DB() int
	SetDB(i int)
}

// Env is what the running server provides to commands beyond the store.
type Env interface {
	Store() *store.DB
	// CountSubscribers returns how many subscriptions (channels and
	// patterns) a message on channel would reach now.
	CountSubscribers(channel string) int64
	ServerEnv // INFO, CONFIG, SAVE, SHUTDOWN: commands/serverenv.go
}
