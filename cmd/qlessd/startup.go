package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/config"
	"github.com/qlessd/qlessd/qless"
	"github.com/qlessd/qlessd/server"
)

// logStarting says what the server starts with, before the data file
// loads (which can take a while): where its configuration and data are.
func logStarting(logger *slog.Logger, s settings, file string) {
	dir := s.str("dir")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if file == "" {
		file = "none"
	}
	logger.Info("qlessd starting", "version", buildVersion(), "commit", buildCommit(), "config_file", file, "dir", dir)
}

// logLoaded says what the data file held.
func logLoaded(logger *slog.Logger, srv *server.Server, took time.Duration) {
	keys, jobs := qless.CountLoaded(srv.Store())
	logger.Info("data loaded", "keys", keys, "jobs", jobs, "load_time", took.Round(time.Microsecond).String())
}

// printUsage is --help: how to run qlessd, and every parameter.
func printUsage(w io.Writer) {
	fmt.Fprint(w, `usage: qlessd [/path/to/qlessd.conf] [--name value ...]
       qlessd check --dir DIR [--repair]
       qlessd script | version | help

The file holds one "name value" a line, as redis.conf does; --name value
arguments after it take the same names and win over the file.

parameters (default):
`)
	for _, p := range commands.ConfigParams() {
		fmt.Fprintf(w, "  --%s %s\n      %s\n", p.Name, config.Quote(p.Default), p.Help)
	}
}
