package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qlessd/qlessd/commands"
)

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "qlessd.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSettingsDefaultsFileThenFlags(t *testing.T) {
	path := writeConf(t, "# mine\ntimeout 7\nmaxclients 500\nproto-max-bulk-len 2mb\nsave 900 1\nsave 300 10\n")
	s, file, err := loadSettings([]string{path, "--timeout", "9", "--lua-readonly-tables", "--client-output-buffer-limit", "pubsub 1mb 512kb 5"})
	if err != nil {
		t.Fatal(err)
	}
	if file != path {
		t.Errorf("file %q", file)
	}
	for name, want := range map[string]string{
		"timeout": "9", "maxclients": "500", "proto-max-bulk-len": "2097152", "save": "900 1 300 10",
		"lua-readonly-tables": "yes", "loglevel": "notice", "port": "6379",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 5",
	} {
		if s[name] != want {
			t.Errorf("%s = %q, want %q", name, s[name], want)
		}
	}
	if len(s) != len(commands.ConfigParams()) {
		t.Errorf("%d settings for %d parameters", len(s), len(commands.ConfigParams()))
	}
}

// Every refusal names where the value was written and what is wrong.
func TestSettingsRefusals(t *testing.T) {
	path := writeConf(t, "port 7000\n\nnosuch-thing 1\n")
	bad := writeConf(t, "timeout abc\n")
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{path}, path + ":3: nosuch-thing: unknown parameter"},
		{[]string{bad}, bad + ":1: timeout: argument couldn't be parsed into an integer (got abc)"},
		{[]string{"--nosuch", "1"}, "argument --nosuch: nosuch: unknown parameter"},
		{[]string{"--loglevel", "bogus"}, "argument --loglevel: loglevel: argument(s) must be one of the following: debug, verbose, notice, warning (got bogus)"},
		{[]string{"--port", "1", "2"}, "argument --port: port: wrong number of arguments: want one value, got 2"},
		{[]string{"--port"}, "argument --port: port: wrong number of arguments: want one value, got 0"},
		{[]string{path, "stray"}, `argument "stray": expected --name`},
		{[]string{"--port", "70000"}, "argument --port: port: argument must be between 0 and 65535 inclusive (got 70000)"},
		{[]string{"--appendonly", "no"}, "qlessd always keeps its append-only file"},
		{[]string{"--client-output-buffer-limit", "pubsub 1mb"}, "Wrong number of arguments in buffer limit configuration."},
		{[]string{filepath.Join(t.TempDir(), "missing.conf")}, "no such file"},
	} {
		_, _, err := loadSettings(tc.argv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.argv, err, tc.want)
		}
	}
}

func TestVersionLine(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "1.2.3", "abc123"
	got := versionLine()
	if !strings.HasPrefix(got, "qlessd version=1.2.3 commit=abc123 go=go") || !strings.HasSuffix(got, " redis_version="+commands.RedisVersion) {
		t.Errorf("version line %q", got)
	}
	version, commit = "", ""
	if buildVersion() == "" || buildCommit() == "" {
		t.Error("no version or commit without -ldflags")
	}
}

func TestPseudoVersionCommit(t *testing.T) {
	for v, want := range map[string]string{
		"v0.0.0-20261127235600-273bd9d2f4bd":       "273bd9d2f4bd",
		"v1.2.4-0.20261127235600-273bd9d2f4bd":     "273bd9d2f4bd",
		"v0.0.0-20261127235600-273bd9d2f4bd+dirty": "273bd9d2f4bd",
		"v1.2.3":                             "",
		"(devel)":                            "",
		"v1.2.3-rc1":                         "",
		"v0.0.0-20261127235600-273BD9D2F4BD": "",
	} {
		if got := pseudoVersionCommit(v); got != want {
			t.Errorf("pseudoVersionCommit(%q) = %q, want %q", v, got, want)
		}
	}
}
