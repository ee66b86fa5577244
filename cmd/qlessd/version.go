package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/qlessd/qlessd/commands"
)

// version and commit are stamped in by the release build (make release):
//
//	go build -ldflags "-X main.version=1.2.3 -X main.commit=abc123" ./cmd/qlessd
//
// INFO reports the version as qlessd_version; redis_version stays the
// Redis version qlessd speaks, which clients check.
var version, commit string

// sourceVersion is the version of a build that was not stamped.
const sourceVersion = "0.1.0"

// buildVersion is version, or the module version `go install
// github.com/qlessd/qlessd/cmd/qlessd@v1.2.3` built, or sourceVersion.
func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return sourceVersion
}

// buildCommit is commit, or the revision go build recorded from the
// checkout it built (marked -dirty when the tree had changes), or the
// commit a pseudo-version names (go install ...@latest of an untagged
// commit), or "unknown".
func buildCommit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev != "" && dirty:
		return rev + "-dirty"
	case rev != "":
		return rev
	}
	if c := pseudoVersionCommit(info.Main.Version); c != "" {
		return c
	}
	return "unknown"
}

// pseudoVersionCommit is the commit prefix ending a Go pseudo-version
// (v0.0.0-20261127235600-273bd9d2f4bd), or "".
func pseudoVersionCommit(v string) string {
	v, _, _ = strings.Cut(v, "+") // +incompatible, +dirty
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 || strings.Count(v, "-") < 2 {
		return ""
	}
	for _, c := range v[i+1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return ""
		}
	}
	return v[i+1:]
}

// versionLine is what `qlessd version` and --version print.
func versionLine() string {
	return fmt.Sprintf("qlessd version=%s commit=%s go=%s redis_version=%s",
		buildVersion(), buildCommit(), runtime.Version(), commands.RedisVersion)
}
