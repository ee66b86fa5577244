//go:build qlessbuilds

package tests

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/qless"
)

// clientBuild is one qless.lua that a client library ships, as qlessd gets
// it (Stock) and as redis-server 7.0 can load it (Redis).
type clientBuild struct {
	Build    string // qless-core commit, as in qless.Profiles
	Stock    string
	Redis    string
	SHA      string // SHA1 of Stock, checked against qless.Profiles
	RedisSHA string // SHA1 of Redis
}

// clientBuilds builds the four known scripts from the local git mirrors,
// in the order of qless.Profiles. It skips the test when a mirror is absent.
func clientBuilds(t *testing.T) []clientBuild {
	core := envOr("QLESS_CORE_GIT", "/work/.mirror/seomoz+qless-core/repo")
	gem := envOr("QLESS_GEM_GIT", "/work/.mirror/seomoz+qless/repo")
	for _, dir := range []string{core, gem} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("git mirror %s not available: %v", dir, err)
		}
	}
	tmp := t.TempDir()
	var out []clientBuild
	for _, p := range qless.Profiles {
		var body string
		if p.Build == "35674dc" {
			// The Ruby gem commits its generated script; take it as is.
			body = gitIn(t, gem, "show", "HEAD:lib/qless/lua/qless.lua")
		} else {
			body = qlessCoreAt(t, core, p.Build)
		}
		b := clientBuild{Build: p.Build, Stock: body, Redis: redisCopy(body), SHA: sha1Hex(body)}
		b.RedisSHA = sha1Hex(b.Redis)
		if b.SHA != p.SHA {
			t.Fatalf("build %s: script SHA1 %s, qless.Profiles says %s", p.Build, b.SHA, p.SHA)
		}
		// The built files live only in the test's temporary directory.
		for name, text := range map[string]string{".lua": b.Stock, "-redis.lua": b.Redis} {
			if err := os.WriteFile(filepath.Join(tmp, "qless-"+p.Build+name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, b)
	}
	return out
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git --git-dir %s %v: %v", dir, args, err)
	}
	return string(out)
}

// makefileComment is the pattern qless-core's Makefile drops with egrep -v.
var makefileComment = regexp.MustCompile(`^[[:space:]]*--[^\[]`)

// qlessCoreAt builds qless.lua at a qless-core commit exactly as its
// Makefile does: the header, then the lines of qless-lib.lua (whose own
// header lines the filter removes) and api.lua without comment lines.
func qlessCoreAt(t *testing.T, dir, commit string) string {
	full := strings.TrimSpace(gitIn(t, dir, "rev-parse", commit))
	header := "-- Current SHA: " + full + "\n-- This is a generated file\n"
	lib := header
	for _, f := range []string{"base", "config", "job", "queue", "recurring", "worker"} {
		lib += gitIn(t, dir, "show", commit+":"+f+".lua")
	}
	all := lib + gitIn(t, dir, "show", commit+":api.lua")
	var b strings.Builder
	b.WriteString(header)
	// egrep prints every kept line with a newline, the last one included.
	for _, line := range strings.Split(strings.TrimSuffix(all, "\n"), "\n") {
		if makefileComment.MatchString(line) || line == "--" {
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// redisCopy makes the script loadable on Redis 7.0, which refuses scripts
// that add to the table library. Line numbers stay the same, so error
// positions are comparable.
func redisCopy(body string) string {
	body = strings.Replace(body, "function table.extend(self, other)", "local function table_extend(self, other)", 1)
	return strings.ReplaceAll(body, "table.extend(", "table_extend(")
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}
