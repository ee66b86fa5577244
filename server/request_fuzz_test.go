package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/qlessd/qlessd/resp"
)

// FuzzRequest reads arbitrary input as a connection's: it never panics,
// never takes more than it was given nor hands out an argument from
// outside it, never reads a command from part of the input that the whole
// does not start with, and reads the same commands, to the same end,
// whatever pieces the input arrives in (split at the points cuts picks).
func FuzzRequest(f *testing.F) {
	for _, c := range redisCases {
		if len(c.in) < 1000 {
			f.Add([]byte(c.in), []byte{3, 7}, false)
		}
	}
	f.Add([]byte("*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n*11\r\n"), []byte{1}, true)
	f.Add([]byte("*1\r\n$16385\r\n"), []byte{}, true)
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nvv\r\nPING \"a\\x41\"\r\n*0\r\n"), []byte{5, 0, 20}, false)
	f.Fuzz(func(t *testing.T, in, cuts []byte, unauth bool) {
		lim := reqLimits{maxBulk: 1 << 20, unauth: unauth}
		checkBounds(t, in, lim)
		checkPrefixes(t, in, lim)
		wantCmds, wantEnd := readAll(in, lim)
		at, points := 0, []int(nil)
		for _, c := range cuts[:min(len(cuts), 64)] {
			at += int(c)
			if at > 0 && at < len(in) && (len(points) == 0 || at > points[len(points)-1]) {
				points = append(points, at)
			}
		}
		cmds, end := readSplit(in, lim, points)
		if fmt.Sprint(cmds) != fmt.Sprint(wantCmds) || end != wantEnd {
			t.Fatalf("split at %v: %v %q; whole: %v %q", points, cmds, end, wantCmds, wantEnd)
		}
	})
}

// checkBounds reads in command by command and checks each takes what it
// was given at most, its multibulk arguments lying inside those bytes.
func checkBounds(t *testing.T, in []byte, lim reqLimits) {
	var p reqParser
	for b := in; len(b) > 0; {
		n, args, err := p.next(b, lim, nil)
		if err != nil {
			return
		}
		if n <= 0 || n > len(b) {
			t.Fatalf("took %d of %d", n, len(b))
		}
		for _, a := range args {
			if len(a) > n {
				t.Fatalf("argument of %d bytes from a command of %d", len(a), n)
			}
			if b[0] == '*' && len(a) > 0 && !inside(a, b[:n]) {
				t.Fatalf("argument %q lies outside its command", a)
			}
		}
		b = b[n:]
	}
}

// inside reports whether a lies within b's memory.
func inside(a, b []byte) bool {
	start, end := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))
	p := uintptr(unsafe.Pointer(&a[0]))
	return p >= start && p+uintptr(len(a)) <= end
}

// checkPrefixes reads every prefix of in with a fresh parser: a command
// read whole from a prefix is the one the whole input starts with.
func checkPrefixes(t *testing.T, in []byte, lim reqLimits) {
	var whole reqParser
	wn, wargs, werr := whole.next(in, lim, nil)
	for k := 0; k < len(in) && k < 512; k++ {
		var p reqParser
		n, args, err := p.next(in[:k], lim, nil)
		if err != nil {
			continue
		}
		if werr != nil || n != wn || fmt.Sprintf("%q", args) != fmt.Sprintf("%q", wargs) {
			t.Fatalf("prefix of %d: took %d %q; whole took %d %q %v", k, n, args, wn, wargs, werr)
		}
	}
}

// FuzzInline splits arbitrary lines as an inline command: it never
// panics, never makes arguments longer than the line, splits a line
// without quotes at its blanks, and splits the arguments written back in
// double quotes (with \xHH escapes) into the same arguments.
func FuzzInline(f *testing.F) {
	for _, c := range redisCases {
		if len(c.in) < 1000 && c.in[0] != '*' {
			f.Add([]byte(strings.TrimRight(c.in, "\r\n")))
		}
	}
	f.Add([]byte(`set "a b" 'c\'d' "\x41\n" e"f g"`))
	f.Add([]byte("\v a\fb \t"))
	f.Fuzz(func(t *testing.T, line []byte) {
		args, ok := resp.SplitArgs(line, nil)
		total := 0
		for _, a := range args {
			total += len(a)
		}
		if total > len(line) {
			t.Fatalf("%q: arguments of %d bytes from a line of %d", line, total, len(line))
		}
		if !bytes.ContainsAny(line, "\"'") {
			want := bytes.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
			if !ok || fmt.Sprintf("%q", trimBlanks(args)) != fmt.Sprintf("%q", trimBlanks(want)) {
				t.Fatalf("%q without quotes: %q %v, want %q", line, args, ok, want)
			}
		}
		if !ok {
			return
		}
		var quoted []byte
		for _, a := range args {
			quoted = append(quoted, '"')
			for _, c := range a {
				quoted = fmt.Appendf(quoted, "\\x%02x", c)
			}
			quoted = append(quoted, '"', ' ')
		}
		again, ok := resp.SplitArgs(quoted, nil)
		if !ok || fmt.Sprintf("%q", again) != fmt.Sprintf("%q", args) {
			t.Fatalf("%q: %q, written back as %q: %q %v", line, args, quoted, again, ok)
		}
	})
}

// trimBlanks drops the arguments of only \v and \f, which Redis skips
// before an argument but keeps within one, and those characters at an
// argument's start: what FieldsFunc over the other blanks cannot tell.
func trimBlanks(args [][]byte) [][]byte {
	var out [][]byte
	for _, a := range args {
		if a = bytes.TrimLeft(a, "\v\f"); len(a) > 0 {
			out = append(out, a)
		}
	}
	return out
}
