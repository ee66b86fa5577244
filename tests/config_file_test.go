package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/redis/go-redis/v9"
)

// startWithFile starts qlessd with the configuration file first, then
// --port, --dir and extra.
func startWithFile(t *testing.T, file, dir string, extra ...string) *Proc {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	// Unless the file sets http-addr, the HTTP listener takes the port
	// + 1101: another start when either was taken meanwhile.
	p := startOnFreePort(t, dir, binary(t), func(port int) []string {
		args := append([]string{file, "--port", strconv.Itoa(port), "--dir", dir}, modeArgs()...)
		return append(args, extra...)
	})
	t.Cleanup(func() { p.Stop() })
	return p
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "qlessd.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// configGet is CONFIG GET pattern as a map.
func configGet(t *testing.T, addr, pattern string) map[string]string {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	got, err := rdb.ConfigGet(context.Background(), pattern).Result()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Values come from the file, and the arguments after it win.
func TestConfigFileThenFlags(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "# tuning\ntimeout 7\nmaxclients 500\nloglevel warning\nlua-time-limit 1000\n")
	q := startWithFile(t, file, "", "--timeout", "9", "--lua-time-limit", "2000")
	got := configGet(t, q.Addr, "*")
	for name, want := range map[string]string{"timeout": "9", "maxclients": "500", "loglevel": "warning", "lua-time-limit": "2000"} {
		if got[name] != want {
			t.Errorf("CONFIG GET %s = %q, want %q", name, got[name], want)
		}
	}
}

// A refused configuration stops qlessd at once, with exit status 2 and a
// message naming where and what.
func TestConfigRefusedAtStart(t *testing.T) {
	t.Parallel()
	unknown := writeFile(t, "# ok so far\nport 7000\nnosuch-directive 1\n")
	badValue := writeFile(t, "loglevel bogus\n")
	port := strconv.Itoa(freePort(t))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{unknown, "--port", port}, unknown + ":3: nosuch-directive: unknown parameter"},
		{[]string{"--port", port, "--nosuch", "1"}, "argument --nosuch: nosuch: unknown parameter"},
		{[]string{badValue, "--port", port}, badValue + ":1: loglevel: argument(s) must be one of the following: debug, verbose, notice, warning (got bogus)"},
		{[]string{"--port", port, "--loglevel", "bogus"}, "argument --loglevel: loglevel: argument(s) must be one of the following"},
		{[]string{unknown, "stray", "--port", port}, `argument "stray": expected --name`},
		{[]string{"--port", port, "--maxclients", "many"}, "argument --maxclients: maxclients: argument couldn't be parsed into an integer (got many)"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, binary(t), append(tc.args, "--dir", t.TempDir())...).CombinedOutput()
		cancel()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 2 || !strings.Contains(string(out), tc.want) {
			t.Errorf("qlessd %q: exit %d (%v), output:\n%s\nwant exit 2 and %q", tc.args, code, err, out, tc.want)
		}
	}
}

// The example file in packaging/ is accepted, lists every parameter, and
// gives each its default.
func TestExampleConfigHasEveryDefault(t *testing.T) {
	t.Parallel()
	example, err := filepath.Abs("../packaging/qlessd.conf")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range commands.ConfigParams() {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(p.Name) + `( |$)`).Match(text) {
			t.Errorf("packaging/qlessd.conf does not set %s", p.Name)
		}
	}
	// The file pins the HTTP port (7480), which another qlessd on this
	// machine may hold: the test moves it, as it moves port and dir.
	q := startWithFile(t, example, "", "--http-addr", "127.0.0.1:0")
	got := configGet(t, q.Addr, "*")
	overridden := map[string]bool{"port": true, "dir": true, "http-addr": true}
	for _, a := range modeArgs() {
		overridden[strings.TrimPrefix(a, "--")] = true
	}
	for _, p := range commands.ConfigParams() {
		v, ok := got[p.Name]
		switch {
		case !ok:
			t.Errorf("CONFIG GET * lacks %s", p.Name)
		case !overridden[p.Name] && v != p.DefaultValue():
			t.Errorf("%s = %q, want its default %q", p.Name, v, p.DefaultValue())
		}
	}
	if len(got) != len(commands.ConfigParams()) {
		t.Errorf("CONFIG GET * gave %d parameters, the registry has %d", len(got), len(commands.ConfigParams()))
	}
}

// CONFIG SET changes a mutable parameter at once, and refuses every
// immutable one as Redis refuses its own.
func TestConfigSetMutableAndImmutable(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	c := DialRaw(t, q.Addr)
	for _, p := range commands.ConfigParams() {
		if p.Mutable {
			continue
		}
		want := "-ERR CONFIG SET failed (possibly related to argument '" + p.Name + "') - can't set immutable config\r\n"
		if r := c.Do(t, "CONFIG", "SET", p.Name, p.Default); r != want {
			t.Errorf("CONFIG SET %s: %q, want %q", p.Name, r, want)
		}
	}
	// Started at warning, the server logs the notice of its shutdown
	// only once CONFIG SET loglevel took effect.
	if r := c.Do(t, "CONFIG", "SET", "loglevel", "notice"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET loglevel: %q", r)
	}
	c.Send(t, "SHUTDOWN", "NOSAVE")
	select {
	case <-q.done:
	case <-time.After(waitTimeout):
		t.Fatal("no shutdown")
	}
	if !strings.Contains(q.Output(), "shutdown requested") {
		t.Errorf("no notice logged after CONFIG SET loglevel notice:\n%s", q.Output())
	}
}

// CONFIG REWRITE writes the changed values into the file in place, adds
// the others after Redis's mark, and keeps comments and blank lines, as
// redis-server 7.0 does with the same file; the file then starts qlessd
// with those values.
func TestConfigRewriteAsRedis(t *testing.T) {
	t.Parallel()
	text := "# my server\nport 1\n\n# clients\ntimeout 0\n  # indented\nloglevel notice\n"
	qFile, rFile := writeFile(t, text), writeFile(t, text)
	dir := t.TempDir()
	q := startWithFile(t, qFile, dir)
	rDir := t.TempDir()
	r := startProc(t, rDir, redisServerPath(t), rFile, "--port", strconv.Itoa(freePort(t)), "--dir", rDir,
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	t.Cleanup(func() { r.Stop() })
	files := map[*Proc]string{q: qFile, r: rFile}
	written := map[*Proc]string{}
	for _, p := range []*Proc{q, r} {
		c := DialRaw(t, p.Addr)
		for _, set := range [][]string{{"timeout", "30"}, {"proto-max-bulk-len", "64mb"}, {"loglevel", "warning"}} {
			if rep := c.Do(t, "CONFIG", "SET", set[0], set[1]); rep != "+OK\r\n" {
				t.Fatalf("CONFIG SET %s: %q", set[0], rep)
			}
		}
		if rep := c.Do(t, "CONFIG", "REWRITE"); rep != "+OK\r\n" {
			t.Fatalf("CONFIG REWRITE: %q", rep)
		}
		b, err := os.ReadFile(files[p])
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := strings.Cut(p.Addr, ":")
		written[p] = strings.Replace(string(b), "port "+port+"\n", "port P\n", 1)
	}
	// Up to its mark, qlessd's file is Redis's; after it, each has the
	// values it adds, among them proto-max-bulk-len and dir.
	head := "# my server\nport P\n\n# clients\ntimeout 30\n# indented\nloglevel warning\n\n# Generated by CONFIG REWRITE\n"
	for p, dir := range map[*Proc]string{q: dir, r: rDir} {
		if !strings.HasPrefix(written[p], head) || !strings.Contains(written[p], "\nproto-max-bulk-len 64mb\n") ||
			!strings.Contains(written[p], "\ndir \""+dir+"\"\n") {
			t.Errorf("rewritten file:\n%s\nwant it to start with:\n%s\nand set proto-max-bulk-len 64mb and dir %q", written[p], head, dir)
		}
	}
	q.Stop()
	again := startOnFreePort(t, dir, binary(t), func(port int) []string {
		return append([]string{qFile, "--port", strconv.Itoa(port)}, modeArgs()...)
	})
	t.Cleanup(func() { again.Stop() })
	got := configGet(t, again.Addr, "*")
	if got["timeout"] != "30" || got["proto-max-bulk-len"] != "67108864" || got["dir"] != dir {
		t.Errorf("restarted from the rewritten file: timeout %q proto-max-bulk-len %q dir %q", got["timeout"], got["proto-max-bulk-len"], got["dir"])
	}
}

// qlessd version names its version, its commit, the Go it was built with
// and the Redis version it speaks, which INFO reports too.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	want := regexp.MustCompile(`^qlessd version=\S+ commit=\S+ go=go\S+ redis_version=` + regexp.QuoteMeta(commands.RedisVersion) + "\n$")
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(binary(t), arg).CombinedOutput()
		if err != nil || !want.Match(out) {
			t.Errorf("qlessd %s: %v %q", arg, err, out)
		}
	}
}

// --logfile takes the log off standard error; the start-up lines say where
// the data is and what it held.
func TestLogfileAndStartupLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "qlessd.log")
	q := StartQlessd(t, dir, "--logfile", logPath, "--loglevel", "notice")
	c := DialRaw(t, q.Addr)
	c.Do(t, "SET", "k", "v")
	c.Do(t, "QLESS", "put", "now", "w", "q", "jid-1", "K", "{}", "0")
	q.Stop()
	q = StartQlessd(t, dir, "--logfile", logPath, "--loglevel", "notice")
	q.Stop()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	logged := string(b)
	for _, want := range []string{
		`msg="qlessd starting"`, "config_file=none", "dir=" + dir, "commit=",
		`msg="data loaded" keys=0 jobs=0 load_time=`, "jobs=1 load_time=",
		`msg="qlessd ready to accept connections" addr=` + q.Addr,
	} {
		if !strings.Contains(logged, want) {
			t.Errorf("log lacks %q:\n%s", want, logged)
		}
	}
	if strings.Contains(q.Output(), "qlessd ready") {
		t.Errorf("logged to standard error too:\n%s", q.Output())
	}
	out, err := exec.Command(binary(t), "--port", "0", "--logfile", filepath.Join(dir, "no", "such", "dir.log")).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "logfile") {
		t.Errorf("unwritable logfile: %v %s", err, out)
	}
}

// With syslog-enabled qlessd logs to the system log too; where there is
// none to reach it says so and serves all the same, as Redis does.
func TestSyslogEnabledStarts(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "", "--syslog-enabled", "yes", "--syslog-ident", "qlessd-test", "--loglevel", "notice")
	got := configGet(t, q.Addr, "syslog-*")
	if got["syslog-enabled"] != "yes" || got["syslog-ident"] != "qlessd-test" {
		t.Errorf("CONFIG GET syslog-*: %v", got)
	}
	if _, err := os.Stat("/dev/log"); err != nil && !strings.Contains(q.Output(), "cannot reach the system log") {
		t.Errorf("no /dev/log and no warning:\n%s", q.Output())
	}
}
