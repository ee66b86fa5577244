// Package qlessbuilds makes the qless.lua that each client library ships
// (qless.Profiles) from local git mirrors of qless-core and of the Ruby
// gem, as each binding builds it. The scripts are never committed; the
// build-matrix tests and make bench make them when the mirrors are there.
package qlessbuilds

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// Mirrors are the git directories the scripts are built from.
type Mirrors struct {
	Core string // qless-core
	Gem  string // the Ruby gem (seomoz/qless)
}

// DefaultMirrors are $QLESS_CORE_GIT and $QLESS_GEM_GIT, else the mirrors
// fetched under /work/.mirror.
func DefaultMirrors() Mirrors {
	return Mirrors{
		Core: envOr("QLESS_CORE_GIT", "/work/.mirror/seomoz+qless-core/repo"),
		Gem:  envOr("QLESS_GEM_GIT", "/work/.mirror/seomoz+qless/repo"),
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Check says why the scripts cannot be built, nil when they can.
func (m Mirrors) Check() error {
	for _, dir := range []string{m.Core, m.Gem} {
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("git mirror %s not available: %w", dir, err)
		}
	}
	return nil
}

// GemBuild is the build the Ruby gem commits as generated.
const GemBuild = "35674dc"

// Script returns the qless.lua of a build (a qless-core commit of
// qless.Profiles) as its binding sends it.
func (m Mirrors) Script(build string) (string, error) {
	if build == GemBuild {
		// The Ruby gem commits its generated script; take it as is.
		return git(m.Gem, "show", "HEAD:lib/qless/lua/qless.lua")
	}
	return coreAt(m.Core, build)
}

func git(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).Output()
	if err != nil {
		return "", fmt.Errorf("git --git-dir %s %v: %w", dir, args, err)
	}
	return string(out), nil
}

// makefileComment is the pattern qless-core's Makefile drops with egrep -v.
var makefileComment = regexp.MustCompile(`^[[:space:]]*--[^\[]`)

// coreAt builds qless.lua at a qless-core commit exactly as its Makefile
// does: the header, then the lines of qless-lib.lua (whose own header
// lines the filter removes) and api.lua without comment lines.
func coreAt(dir, commit string) (string, error) {
	full, err := git(dir, "rev-parse", commit)
	if err != nil {
		return "", err
	}
	header := "-- Current SHA: " + strings.TrimSpace(full) + "\n-- This is a generated file\n"
	all := header
	for _, f := range []string{"base", "config", "job", "queue", "recurring", "worker", "api"} {
		text, err := git(dir, "show", commit+":"+f+".lua")
		if err != nil {
			return "", err
		}
		all += text
	}
	var b strings.Builder
	b.WriteString(header)
	// egrep prints every kept line with a newline, the last one included.
	for _, line := range strings.Split(strings.TrimSuffix(all, "\n"), "\n") {
		if makefileComment.MatchString(line) || line == "--" {
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String(), nil
}

// RedisLoadable makes a build loadable on Redis 7.0, which refuses scripts
// that add to the table library: the helper becomes a local function (same
// lines, same behaviour), so line numbers and error positions stay
// comparable. Other scripts are returned as they are.
func RedisLoadable(body string) string {
	if !strings.Contains(body, "function table.extend(self, other)") {
		return body
	}
	body = strings.Replace(body, "function table.extend(self, other)", "local function table_extend(self, other)", 1)
	return strings.ReplaceAll(body, "table.extend(", "table_extend(")
}
