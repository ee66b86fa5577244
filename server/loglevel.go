package server

import (
	"log/slog"
	"strings"
)

// LogLevel is the slog level of a loglevel value as Redis names them;
// verbose sits between debug and notice (info).
func LogLevel(name string) slog.Level {
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug
	case "verbose":
		return slog.LevelDebug + 2
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
