package tests

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fillTypes writes one small key of each type to r.
func fillTypes(t *testing.T, r *Raw) {
	for _, c := range [][]string{
		{"SET", "str", "v"}, {"SET", "long", strings.Repeat("x", 1000)}, {"RPUSH", "list", "a", "b", "c"},
		{"HSET", "hash", "f", "1", "g", "2"}, {"SADD", "ints", "1", "2", "3"}, {"SADD", "set", "a", "b"},
		{"ZADD", "zset", "1", "a", "2", "b"},
	} {
		r.Do(t, c...)
	}
}

// TestObserveMemorySameAsRedis compares MEMORY's errors and replies with
// redis-server's, and checks that MEMORY USAGE is near Redis's for each
// type and MEMORY STATS has Redis's fields.
func TestObserveMemorySameAsRedis(t *testing.T) {
	p := StartPair(t)
	fillTypes(t, p.Q)
	fillTypes(t, p.R)
	sameAll(t, p, [][]string{
		{"MEMORY", "HELP"}, {"MEMORY", "USAGE"}, {"MEMORY", "USAGE", "nokey"}, {"MEMORY", "USAGE", "str", "SAMPLES"},
		{"MEMORY", "USAGE", "str", "SAMPLES", "x"}, {"MEMORY", "USAGE", "str", "SAMPLES", "-1"},
		{"MEMORY", "USAGE", "str", "FOO", "1"}, {"MEMORY", "DOCTOR", "x"}, {"MEMORY", "PURGE", "x"},
		{"MEMORY", "STATS", "x"}, {"MEMORY", "MALLOC-STATS", "x"}, {"MEMORY"}, {"MEMORY", "FOO"},
	})
	for _, k := range []string{"str", "long", "list", "hash", "ints", "set", "zset"} {
		q, _ := strconv.Atoi(strings.Trim(p.Q.Do(t, "MEMORY", "USAGE", k, "SAMPLES", "0"), ":\r\n"))
		r, _ := strconv.Atoi(strings.Trim(p.R.Do(t, "MEMORY", "USAGE", k, "SAMPLES", "0"), ":\r\n"))
		if q < r/2 || q > 2*r {
			t.Errorf("MEMORY USAGE %s: %d, Redis says %d", k, q, r)
		}
	}
	names := func(raw string) string {
		var out []string
		for _, m := range regexp.MustCompile(`\$\d+\r\n([a-z][a-z0-9.\-]*)\r\n`).FindAllStringSubmatch(raw, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}
	if q, r := names(p.Q.Do(t, "MEMORY", "STATS")), names(p.R.Do(t, "MEMORY", "STATS")); q != r {
		t.Errorf("MEMORY STATS fields:\n  qlessd: %s\n  redis:  %s", q, r)
	}
}

var clientField = regexp.MustCompile(`\b(qbuf|qbuf-free|argv-mem|multi-mem|omem|tot-mem|multi|flags|cmd)=(\S+)`)

func clientFields(line string) map[string]string {
	f := map[string]string{}
	for _, m := range clientField.FindAllStringSubmatch(line, -1) {
		f[m[1]] = m[2]
	}
	return f
}

// TestObserveClientListMemory checks CLIENT LIST's buffer fields: the
// caller's query buffer and arguments as Redis counts them, another
// client's queued MULTI (its last queued command as cmd, as Redis shows
// it), figures above zero where Redis's are.
func TestObserveClientListMemory(t *testing.T) {
	q := StartQlessd(t, "")
	a, b := DialRaw(t, q.Addr), DialRaw(t, q.Addr)
	a.Do(t, "MULTI")
	a.Do(t, "SET", "k", strings.Repeat("v", 100))
	me := clientFields(b.Do(t, "CLIENT", "INFO"))
	if me["qbuf"] != "26" || me["argv-mem"] != "10" || me["cmd"] != "client|info" {
		t.Errorf("CLIENT INFO of itself: %v; want qbuf=26 argv-mem=10 as Redis", me)
	}
	for _, f := range []string{"qbuf-free", "tot-mem"} {
		if n, _ := strconv.Atoi(me[f]); n <= 0 {
			t.Errorf("CLIENT INFO %s=%s, want more than 0", f, me[f])
		}
	}
	_, list, _ := strings.Cut(b.Do(t, "CLIENT", "LIST"), "\r\n")
	var other map[string]string
	for _, l := range strings.Split(list, "\n") {
		if f := clientFields(l); f["cmd"] == "set" {
			other = f
		}
	}
	if other["multi"] != "1" || other["flags"] != "x" {
		t.Fatalf("the client in MULTI: %v in\n%s", other, list)
	}
	if n, _ := strconv.Atoi(other["multi-mem"]); n < 100 {
		t.Errorf("multi-mem=%s with a 100-byte command queued", other["multi-mem"])
	}
	if n, _ := strconv.Atoi(other["tot-mem"]); n <= 0 {
		t.Errorf("tot-mem=%s", other["tot-mem"])
	}
}

// runCLI runs redis-cli against addr for at most d and returns its output.
func runCLI(t *testing.T, addr string, d time.Duration, args ...string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cli := append([]string{"-oL", "redis-cli", "-h", host, "-p", port}, args...)
	out, _ := exec.CommandContext(ctx, "stdbuf", cli...).CombinedOutput()
	return string(out)
}

// runCLIUntil runs redis-cli against addr, which goes on until stopped,
// until its output matches want (or waitTimeout passes), and returns it.
func runCLIUntil(t *testing.T, addr string, want *regexp.Regexp, args ...string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("stdbuf", append([]string{"-oL", "redis-cli", "-h", host, "-p", port}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	timer := time.AfterFunc(waitTimeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var got strings.Builder
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if got.WriteString(lines.Text() + "\n"); want.MatchString(got.String()) {
			break
		}
	}
	return got.String()
}

// TestObserveRedisCLITools runs redis-cli's --memkeys, --bigkeys, --stat
// and --latency against qlessd: they need MEMORY USAGE, INFO and PING
// to give real figures.
func TestObserveRedisCLITools(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Fatal("redis-cli not found (make test installs it)")
	}
	q := StartQlessd(t, "")
	fillTypes(t, DialRaw(t, q.Addr))
	mem := runCLI(t, q.Addr, 10*time.Second, "--memkeys")
	m := regexp.MustCompile(`Biggest string found '"long"' has (\d+) bytes`).FindStringSubmatch(mem)
	if n, _ := strconv.Atoi(append(m, "", "")[1]); n < 1000 {
		t.Errorf("--memkeys:\n%s", mem)
	}
	if !regexp.MustCompile(`1 lists with [1-9]\d* bytes`).MatchString(mem) {
		t.Errorf("--memkeys shows no list bytes:\n%s", mem)
	}
	big := runCLI(t, q.Addr, 10*time.Second, "--bigkeys")
	if !strings.Contains(big, `Biggest   list found '"list"' has 3 items`) {
		t.Errorf("--bigkeys:\n%s", big)
	}
	statLine := regexp.MustCompile(`(?m)^7\s+\d+(\.\d+)?[KMG]?\s+\d+\s+0\s+\d+ \(\+\d+\)`)
	if stat := runCLIUntil(t, q.Addr, statLine, "--stat", "-i", "0.2"); !statLine.MatchString(stat) {
		t.Errorf("--stat:\n%s", stat)
	}
	// With --raw, --latency samples for a second, prints one line and exits.
	lat := runCLI(t, q.Addr, waitTimeout, "--latency", "--raw")
	if f := strings.Fields(lat); len(f) != 4 || f[3] == "0" {
		t.Errorf("--latency --raw: %q, want min max avg count", lat)
	}
}
