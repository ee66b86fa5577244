package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The big-value part: one SET of a value of -big-value bytes on each
// server (appendfsync everysec), then DEL and a disconnect. It measures
// what one large request costs a server: how long the SET takes, the
// server's peak resident memory (VmHWM), and whether that memory goes
// back to the system afterwards (VmRSS bigSettle after the DEL and the
// disconnect, beside VmRSS before the SET).

// bigSettle is how long after the DEL and the disconnect the resident
// memory is read again.
const bigSettle = 10 * time.Second

// bigResult is one server's figures for the big-value part.
type bigResult struct {
	Server    string  `json:"server"`
	Bytes     int64   `json:"bytes"`
	Seconds   float64 `json:"set_seconds"`
	RSSBefore int64   `json:"rss_before"`
	PeakRSS   int64   `json:"peak_rss"`
	RSSAfter  int64   `json:"rss_after"`
	Err       string  `json:"error,omitempty"`
}

// runBigValue runs the big-value part on every server of cfg.servers.
func runBigValue(cfg *config, note func(string, ...any)) []*bigResult {
	value := bigValue(cfg.bigValue)
	var out []*bigResult
	for _, kind := range cfg.servers {
		if stopping() {
			break
		}
		r := &bigResult{Server: kind, Bytes: cfg.bigValue}
		if err := bigValueOn(cfg, kind, value, r); err != nil {
			r.Err = err.Error()
			note("big value on %s: %v", kind, err)
		}
		out = append(out, r)
	}
	return out
}

// bigValue is n bytes that no layer could shrink or share: a pseudo-random
// pattern rather than zeros.
func bigValue(n int64) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func bigValueOn(cfg *config, kind string, value []byte, r *bigResult) error {
	s, err := startServer(cfg, kind, "everysec")
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	c, err := dial(s.addr)
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := c.do("PING"); err != nil {
		return err
	}
	if r.RSSBefore, err = procStatus(pid, "VmRSS"); err != nil {
		return err
	}
	// One request of this size may take minutes on a loaded machine.
	c.nc.SetDeadline(time.Now().Add(10 * time.Minute))
	c.rearm = time.Now().Add(10 * time.Minute)
	start := time.Now()
	head := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n", len(value))
	if err := writeAll(c.nc, []byte(head), value, []byte("\r\n")); err != nil {
		return err
	}
	rep, err := c.read()
	if err != nil {
		return err
	}
	r.Seconds = time.Since(start).Seconds()
	if rep.kind != '+' {
		return fmt.Errorf("SET replied %q", rep.str)
	}
	c.arm()
	if n, err := c.do("DEL", "big"); err != nil || n.num != 1 {
		return fmt.Errorf("DEL: %v %v", n.num, err)
	}
	c.close()
	select {
	case <-time.After(bigSettle):
	case <-s.done:
		return fmt.Errorf("%s exited", kind)
	}
	if r.RSSAfter, err = procStatus(pid, "VmRSS"); err != nil {
		return err
	}
	// The peak since the start, read last: a data-file rewrite that the
	// SET set off counts too.
	r.PeakRSS, err = procStatus(pid, "VmHWM")
	return err
}

func writeAll(w io.Writer, parts ...[]byte) error {
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// procStatus reads one "kB" field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// printBigValue prints the big-value part, one line per server.
func printBigValue(w io.Writer, rs []*bigResult) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "big value: one SET of %d bytes, appendfsync everysec; RSS after: %s after DEL and disconnect\n", rs[0].Bytes, bigSettle)
	fmt.Fprintf(w, "%-8s %10s %12s %12s %12s\n", "server", "SET time", "RSS before", "peak RSS", "RSS after")
	for _, r := range rs {
		if r.Err != "" {
			fmt.Fprintf(w, "%-8s %s\n", r.Server, r.Err)
			continue
		}
		fmt.Fprintf(w, "%-8s %9.2fs %12s %12s %12s\n", r.Server, r.Seconds, mb(r.RSSBefore), mb(r.PeakRSS), mb(r.RSSAfter))
	}
}

func mb(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }
