package tests

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// dialTLSRaw is a bare RESP connection over TLS.
func dialTLSRaw(t testing.TB, addr string, conf *tls.Config) (*Raw, *tls.Conn) {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, conf)
	if err != nil {
		t.Fatalf("TLS dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &Raw{c: c, rd: bufio.NewReader(c)}, c
}

// respCmd is a command in RESP.
func respCmd(args ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.Bytes()
}

// writeAll writes b in one Write: one TLS record up to 16 KB.
func writeAll(t testing.TB, c net.Conn, b []byte) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(waitTimeout))
	if _, err := c.Write(b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// readEOF reports whether the connection ends (the server closed it)
// before waitTimeout, with no reply before the end.
func readEOF(c net.Conn) error {
	c.SetReadDeadline(time.Now().Add(waitTimeout))
	var buf [64]byte
	n, err := c.Read(buf[:])
	switch {
	case n > 0:
		return fmt.Errorf("read %q instead of the end", buf[:n])
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		return nil
	case err != nil && strings.Contains(err.Error(), "reset"):
		return nil
	}
	return fmt.Errorf("no end: %v", err)
}

// TLS clients are served by the event loop as plain ones are (unless
// QLESSD_ARGS says --event-loop no): pipelines, commands cut over many
// records, long values, and the commands that take a connection out of the
// loop (blocking pops, SUBSCRIBE, MULTI) reply byte for byte as
// redis-server 7.0 with TLS does, and a close_notify, a CLIENT KILL and a
// cross-protocol request end the connection as there.
func TestTLSLoopServesLikeRedis(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	pair := startTLSPair(t, p)
	conf := clientConfig(p.ca, p.client)
	got := map[string]string{}
	for _, srv := range []struct{ who, plain, tlsAddr string }{{"redis-server", pair.r.Addr, pair.rTLS}, {"qlessd", pair.q.Addr, pair.qTLS}} {
		var tr strings.Builder
		ctl := DialRaw(t, srv.plain)
		r, c := dialTLSRaw(t, srv.tlsAddr, conf)

		// Five commands in one record.
		var pipe []byte
		for _, cmd := range [][]string{{"SET", "a", "1"}, {"INCR", "a"}, {"GET", "a"}, {"PING"}, {"ECHO", "x"}} {
			pipe = append(pipe, respCmd(cmd...)...)
		}
		writeAll(t, c, pipe)
		for range 5 {
			tr.WriteString(r.Read(t))
		}
		// A command a byte per record, then one cut in the middle of a
		// record that also holds the next command's start.
		for _, b := range respCmd("SET", "split", strings.Repeat("v", 300)) {
			writeAll(t, c, []byte{b})
		}
		tr.WriteString(r.Read(t))
		two := append(respCmd("APPEND", "split", "w"), respCmd("STRLEN", "split")...)
		writeAll(t, c, two[:7])
		writeAll(t, c, two[7:len(two)-5])
		writeAll(t, c, two[len(two)-5:])
		tr.WriteString(r.Read(t) + r.Read(t))

		// A 10 MB value, written and read back.
		big := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
		big[12345] = 'X'
		writeAll(t, c, respCmd("SET", "big", string(big)))
		tr.WriteString(r.Read(t))
		back := r.Do(t, "GET", "big")
		want := fmt.Sprintf("$%d\r\n%s\r\n", len(big), big)
		fmt.Fprintf(&tr, "GET big: %d bytes, same: %v\n", len(back), sha256.Sum256([]byte(back)) == sha256.Sum256([]byte(want)))
		tr.WriteString(r.Do(t, "STRLEN", "big"))

		// MULTI, then a blocking pop, which qlessd serves off the loop.
		tr.WriteString(r.Do(t, "MULTI") + r.Do(t, "INCR", "a") + r.Do(t, "GET", "a") + r.Do(t, "EXEC"))
		r.Send(t, "BLPOP", "list", "0")
		waitBlocked(t, ctl, 1)
		tr.WriteString(ctl.Do(t, "RPUSH", "list", "pushed"))
		tr.WriteString(r.Read(t) + r.Do(t, "PING"))

		// Pub/sub over TLS.
		s, _ := dialTLSRaw(t, srv.tlsAddr, conf)
		tr.WriteString(s.Do(t, "SUBSCRIBE", "ch"))
		tr.WriteString(ctl.Do(t, "PUBLISH", "ch", "hello"))
		tr.WriteString(s.Read(t))

		// The client's close_notify ends the connection.
		cn, cc := dialTLSRaw(t, srv.tlsAddr, conf)
		tr.WriteString(cn.Do(t, "PING"))
		if err := cc.CloseWrite(); err != nil {
			t.Fatalf("%s: close_notify: %v", srv.who, err)
		}
		if err := readEOF(cc); err != nil {
			t.Errorf("%s: after the client's close_notify: %v", srv.who, err)
		}

		// CLIENT KILL from another connection.
		k, kc := dialTLSRaw(t, srv.tlsAddr, conf)
		tr.WriteString(k.Do(t, "CLIENT", "SETNAME", "victim"))
		id := strings.TrimSpace(strings.TrimPrefix(k.Do(t, "CLIENT", "ID"), ":"))
		tr.WriteString(ctl.Do(t, "CLIENT", "KILL", "ID", id))
		if err := readEOF(kc); err != nil {
			t.Errorf("%s: after CLIENT KILL: %v", srv.who, err)
		}

		// A cross-protocol request over TLS runs nothing.
		_, xc := dialTLSRaw(t, srv.tlsAddr, conf)
		writeAll(t, xc, []byte("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 20\r\n\r\nSET xproto pwned\r\n"))
		if err := readEOF(xc); err != nil {
			t.Errorf("%s: after a POST: %v", srv.who, err)
		}
		tr.WriteString(ctl.Do(t, "EXISTS", "xproto"))
		got[srv.who] = tr.String()
	}
	if got["qlessd"] != got["redis-server"] {
		t.Errorf("over TLS, qlessd:\n%q\nredis-server 7.0:\n%q", got["qlessd"], got["redis-server"])
	}
}

// A TLS 1.3 key update from the client (openssl s_client's K: update, and
// ask the server to update too; k: update only) leaves the session working,
// and the server answers K with a key update of its own, as redis-server
// 7.0 does.
func TestTLSLoopKeyUpdate(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	pair := startTLSPair(t, p)
	for _, srv := range []struct{ who, addr string }{{"redis-server", pair.rTLS}, {"qlessd", pair.qTLS}} {
		cmd := exec.Command("openssl", "s_client", "-connect", srv.addr, "-CAfile", p.caFile, "-cert", p.file("client.crt"),
			"-key", p.file("client.key"), "-tls1_3", "-no_ign_eof", "-msg")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, w := io.Pipe()
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			t.Fatalf("openssl s_client: %v", err)
		}
		lines := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		serverUpdates := 0
		var seen []string // the last lines, for a failure's message
		until := func(want ...string) string {
			t.Helper()
			deadline := time.After(waitTimeout)
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("%s: s_client ended before %q", srv.who, want)
					}
					seen = append(seen[max(len(seen)-30, 0):], l)
					if strings.HasPrefix(l, "<<< ") && strings.HasSuffix(l, "KeyUpdate") {
						serverUpdates++
					}
					for _, w := range want {
						if strings.HasSuffix(l, w) {
							return w
						}
					}
				case <-deadline:
					t.Fatalf("%s: no %q from s_client; its last lines:\n%s", srv.who, want, strings.Join(seen, "\n"))
				}
			}
		}
		io.WriteString(in, "ECHO one\r\n")
		until("one")
		// s_client takes a letter only at the start of what it reads at once.
		// Now and then s_client sends the letter as data instead (the
		// server calls it an unknown command); it is sent again then.
		letter := func(l string) {
			t.Helper()
			for range 10 {
				io.WriteString(in, l+"\n")
				if until("KeyUpdate", "unknown command '"+l+"', with args beginning with: ") == "KeyUpdate" {
					return // its own, sent
				}
			}
			t.Fatalf("%s: s_client did not take %s as a key update", srv.who, l)
		}
		letter("K")
		io.WriteString(in, "ECHO two\r\n")
		until("two")
		letter("k")
		io.WriteString(in, "ECHO three\r\n")
		until("three")
		in.Close()
		cmd.Wait()
		w.Close()
		if serverUpdates != 1 {
			t.Errorf("%s: the server sent %d key updates; want 1 (for K)", srv.who, serverUpdates)
		}
	}
}
