package tests

import (
	"strings"
	"testing"
)

// QLESS help replies as Redis's HELP subcommands do, an array of status
// lines, one synopsis and one indented description per function; every
// function it lists is one QLESS dispatches.
func TestQlessHelp(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	raw := DialRaw(t, q.Addr)
	reply := raw.Do(t, "QLESS", "help")
	if upper := raw.Do(t, "QLESS", "HELP"); upper != reply {
		t.Errorf("QLESS HELP differs from QLESS help:\n%q\n%q", upper, reply)
	}
	lines := strings.Split(strings.TrimSuffix(reply, "\r\n"), "\r\n")
	if !strings.HasPrefix(lines[0], "*") {
		t.Fatalf("not an array: %q", reply)
	}
	lines = lines[1:]
	for _, l := range lines {
		if !strings.HasPrefix(l, "+") {
			t.Fatalf("line %q is not a status", l)
		}
	}
	if want := "+QLESS <function> <now> [<arg> ...]."; !strings.HasPrefix(lines[0], want) {
		t.Errorf("header %q", lines[0])
	}
	if tail := lines[len(lines)-2:]; tail[0] != "+HELP" || tail[1] != "+    Prints this help." {
		t.Errorf("tail %q", tail)
	}
	entries := lines[1 : len(lines)-2]
	if len(entries) < 70 || len(entries)%2 != 0 {
		t.Fatalf("%d lines of functions:\n%s", len(entries), strings.Join(entries, "\n"))
	}
	seen := map[string]bool{}
	for i := 0; i < len(entries); i += 2 {
		synopsis, doc := entries[i][1:], entries[i+1][1:]
		if !strings.HasPrefix(doc, "    ") || strings.HasPrefix(synopsis, " ") {
			t.Errorf("entry %q / %q", synopsis, doc)
		}
		name, _, _ := strings.Cut(synopsis, " ")
		seen[name] = true
		if got := raw.Do(t, "QLESS", name, "0"); strings.Contains(got, "Unknown command") {
			t.Errorf("QLESS help lists %s, which QLESS does not know: %q", name, got)
		}
	}
	for _, name := range []string{"put", "pop", "complete", "fail", "retry", "heartbeat", "queues", "recur", "config.set"} {
		if !seen[name] {
			t.Errorf("QLESS help does not list %s", name)
		}
	}
	if got := raw.Do(t, "QLESS", "put", "0", "w", "q", "j", "K", "{}", "0"); got != "$1\r\nj\r\n" {
		t.Errorf("put after help: %q", got)
	}
}
