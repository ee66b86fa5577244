package tests

import (
	"bufio"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Raw is a bare RESP connection that returns each reply as its exact bytes,
// so that differential tests compare what goes over the wire.
type Raw struct {
	c  net.Conn
	rd *bufio.Reader
}

// DialRaw connects to addr.
func DialRaw(t testing.TB, addr string) *Raw {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &Raw{c: c, rd: bufio.NewReader(c)}
}

// Send writes one command without reading its reply.
func (r *Raw) Send(t testing.TB, args ...string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	r.c.SetWriteDeadline(time.Now().Add(waitTimeout))
	if _, err := r.c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
}

// Read reads one reply and returns its raw bytes.
func (r *Raw) Read(t testing.TB) string {
	t.Helper()
	r.c.SetReadDeadline(time.Now().Add(waitTimeout))
	var b strings.Builder
	if err := readReply(r.rd, &b); err != nil {
		t.Fatalf("read reply: %v (so far %q)", err, b.String())
	}
	return b.String()
}

// replied reports whether a reply has come, without reading it.
func (r *Raw) replied() bool {
	r.c.SetReadDeadline(time.Now().Add(time.Millisecond))
	defer r.c.SetReadDeadline(time.Time{})
	_, err := r.rd.Peek(1)
	return err == nil
}

// Do sends a command and returns the raw reply.
func (r *Raw) Do(t testing.TB, args ...string) string {
	t.Helper()
	r.Send(t, args...)
	return r.Read(t)
}

func readReply(rd *bufio.Reader, b *strings.Builder) error {
	line, err := rd.ReadString('\n')
	if err != nil {
		return err
	}
	b.WriteString(line)
	if len(line) < 3 {
		return fmt.Errorf("short line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(rd, buf); err != nil {
			return err
		}
		b.Write(buf)
		return nil
	case '*', '~', '>', '%':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if line[0] == '%' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := readReply(rd, b); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unexpected reply type %q", line)
}

func ioReadFull(rd *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := rd.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// SortedReply renders a raw reply with its top-level array elements sorted.
func SortedReply(raw string) string {
	if !strings.HasPrefix(raw, "*") && !strings.HasPrefix(raw, "~") {
		return raw
	}
	rd := bufio.NewReader(strings.NewReader(raw))
	head, _ := rd.ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil || n <= 0 {
		return raw
	}
	elems := make([]string, n)
	for i := range elems {
		var b strings.Builder
		if readReply(rd, &b) != nil {
			return raw
		}
		elems[i] = b.String()
	}
	sort.Strings(elems)
	return head + strings.Join(elems, "")
}
