package tests

import (
	"bufio"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// hsSameAll sends each command to both servers and requires identical bytes,
// except that SMEMBERS's elements may come in any order, and so may a hash's
// when Redis keeps it as a hashtable. A listpack hash replies in insertion
// order, which must match exactly.
func hsSameAll(t *testing.T, p *Pair, cmds [][]string) {
	t.Helper()
	for _, c := range cmds {
		cmd := strings.ToUpper(c[0])
		switch {
		case cmd == "SMEMBERS":
			p.SameSorted(t, c...)
		case (cmd == "HGETALL" || cmd == "HKEYS" || cmd == "HVALS") && len(c) == 2 &&
			p.R.Do(t, "OBJECT", "ENCODING", c[1]) == "$9\r\nhashtable\r\n":
			if cmd == "HGETALL" {
				hsSamePairs(t, p, c...)
			} else {
				p.SameSorted(t, c...)
			}
		default:
			p.Same(t, c...)
		}
	}
}

// hsFlat parses a reply into its leaf strings, depth first: bulk strings,
// integers and statuses as their text, nulls as "<nil>".
func hsFlat(t testing.TB, raw string) []string {
	t.Helper()
	rd := bufio.NewReader(strings.NewReader(raw))
	var out []string
	var walk func()
	walk = func() {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("parse %q: %v", raw, err)
		}
		body := line[1 : len(line)-2]
		switch line[0] {
		case '+', '-', ':':
			out = append(out, body)
		case '$':
			n, _ := strconv.Atoi(body)
			if n < 0 {
				out = append(out, "<nil>")
				return
			}
			buf := make([]byte, n+2)
			if _, err := ioReadFull(rd, buf); err != nil {
				t.Fatal(err)
			}
			out = append(out, string(buf[:n]))
		case '*':
			n, _ := strconv.Atoi(body)
			for i := 0; i < n; i++ {
				walk()
			}
		}
	}
	walk()
	return out
}

// hsPairs turns a flat field/value reply (or a scan page of them) into
// sorted "field=value" items.
func hsPairs(t testing.TB, raw string) []string {
	t.Helper()
	flat := hsFlat(t, raw)
	var out []string
	if len(flat)%2 != 0 { // a scan reply: the cursor comes first
		out = append(out, "cursor "+flat[0])
		flat = flat[1:]
	}
	for i := 0; i < len(flat); i += 2 {
		out = append(out, flat[i]+"="+flat[i+1])
	}
	sort.Strings(out)
	return out
}

// hsSamePairs compares replies made of field/value pairs whose order Redis
// leaves to the hash: the pairs must match as sets.
func hsSamePairs(t *testing.T, p *Pair, args ...string) {
	t.Helper()
	q, r := p.Q.Do(t, args...), p.R.Do(t, args...)
	if q[0] != r[0] || strings.Join(hsPairs(t, q), "\n") != strings.Join(hsPairs(t, r), "\n") {
		t.Errorf("%s (pairs)\n  qlessd: %q\n  redis:  %q", quoteArgs(args), q, r)
	}
}

// hsScanAll runs a SCAN-family command to completion on one server and
// returns every element it produced, sorted, with duplicates removed.
func hsScanAll(t *testing.T, r *Raw, cmd, key string, pairs bool, opts ...string) []string {
	t.Helper()
	cursor := "0"
	seen := map[string]bool{}
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatalf("%s %s never finished", cmd, key)
		}
		args := append([]string{cmd, key, cursor}, opts...)
		flat := hsFlat(t, r.Do(t, args...))
		cursor = flat[0]
		elems := flat[1:]
		if pairs {
			for j := 0; j+1 < len(elems); j += 2 {
				seen[elems[j]+"="+elems[j+1]] = true
			}
		} else {
			for _, e := range elems {
				seen[e] = true
			}
		}
		if cursor == "0" {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for e := range seen {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}
