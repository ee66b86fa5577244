package tests

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Over TLS qlessd serves what it serves in clear: go-redis and redis-cli
// --tls get the same replies from it as from redis-server 7.0 with the
// same certificates, qless included.
func TestTLSServesCommands(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	pair := startTLSPair(t, p)
	ctx := context.Background()
	for _, addr := range []string{pair.qTLS, pair.rTLS} {
		c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: clientConfig(p.ca, p.client)})
		if err := c.Set(ctx, "k", "over tls", 0).Err(); err != nil {
			t.Fatalf("%s: SET: %v", addr, err)
		}
		if v, err := c.Get(ctx, "k").Result(); err != nil || v != "over tls" {
			t.Errorf("%s: GET = %q, %v", addr, v, err)
		}
		c.Close()
		out, err := exec.Command("redis-cli", "--tls", "--cacert", p.caFile, "--cert", p.file("client.crt"),
			"--key", p.file("client.key"), "-h", "127.0.0.1", "-p", portOf(addr), "PING").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "PONG" {
			t.Errorf("%s: redis-cli --tls PING: %q, %v", addr, out, err)
		}
	}
	c := redis.NewClient(&redis.Options{Addr: pair.qTLS, TLSConfig: clientConfig(p.ca, p.client)})
	defer c.Close()
	if err := c.Do(ctx, "QLESS", "put", "now", "", "q", "jid-tls", "Klass", "{}", "0").Err(); err != nil {
		t.Fatalf("QLESS put over TLS: %v", err)
	}
	// The plain port serves the same store.
	plain := redis.NewClient(&redis.Options{Addr: pair.q.Addr})
	defer plain.Close()
	if v, err := plain.Get(ctx, "k").Result(); err != nil || v != "over tls" {
		t.Errorf("plain GET of the key set over TLS = %q, %v", v, err)
	}
	if n, err := plain.Do(ctx, "QLESS", "length", "now", "q").Int(); err != nil || n != 1 {
		t.Errorf("QLESS length over the plain port = %d, %v", n, err)
	}
}

func portOf(addr string) string {
	return addr[strings.LastIndexByte(addr, ':')+1:]
}

// tls-auth-clients yes, optional and no admit and refuse the same clients
// on qlessd as on redis-server: without a certificate, with one the CA
// signed, and with one a foreign CA signed. A client that does not trust
// the server's CA is refused by both, whatever the mode.
func TestTLSAuthClients(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	for _, mode := range []string{"yes", "optional", "no"} {
		t.Run(mode, func(t *testing.T) {
			pair := startTLSPair(t, p, "--tls-auth-clients", mode)
			want := map[string]bool{ // admitted
				"no certificate": mode != "yes", "our CA's certificate": true,
				"a foreign CA's certificate": mode == "no", "a client not trusting the server": false,
			}
			for name, admitted := range want {
				for _, srv := range []struct{ who, addr string }{{"redis-server", pair.rTLS}, {"qlessd", pair.qTLS}} {
					var err error
					switch name {
					case "no certificate":
						err = tlsPing(srv.addr, clientConfig(p.ca))
					case "our CA's certificate":
						err = tlsPing(srv.addr, clientConfig(p.ca, p.client))
					case "a foreign CA's certificate":
						err = tlsPing(srv.addr, clientConfig(p.ca, p.foreign))
					default:
						err = tlsPing(srv.addr, clientConfig(p.otherCA, p.client))
					}
					if (err == nil) != admitted {
						t.Errorf("tls-auth-clients %s, %s, %s: PING error %v, want admitted=%v", mode, name, srv.who, err, admitted)
					}
				}
			}
		})
	}
}

// CONFIG SET tls-cert-file (with its key) reloads the certificate as
// Redis does: new connections get the new one, open ones carry on; a file
// that does not load is refused with Redis's error, and the certificate
// and the parameters stay as they were.
func TestTLSConfigSetReloadsCertificate(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	pair := startTLSPair(t, p)
	conf := clientConfig(p.ca, p.client)
	for _, srv := range []struct {
		who, plain, tlsAddr string
	}{{"redis-server", pair.r.Addr, pair.rTLS}, {"qlessd", pair.q.Addr, pair.qTLS}} {
		old := redis.NewClient(&redis.Options{Addr: srv.tlsAddr, TLSConfig: conf, PoolSize: 1})
		ctx := context.Background()
		if err := old.Ping(ctx).Err(); err != nil {
			t.Fatalf("%s: %v", srv.who, err)
		}
		if s := peerSerial(t, srv.tlsAddr, conf); s != "1001" {
			t.Fatalf("%s: serial %s before the reload, want 1001", srv.who, s)
		}
		raw := DialRaw(t, srv.plain)
		if r := raw.Do(t, "CONFIG", "SET", "tls-cert-file", p.file("server2.crt"), "tls-key-file", p.file("server2.key")); r != "+OK\r\n" {
			t.Fatalf("%s: CONFIG SET tls-cert-file: %q", srv.who, r)
		}
		if s := peerSerial(t, srv.tlsAddr, conf); s != "1002" {
			t.Errorf("%s: serial %s after CONFIG SET, want 1002", srv.who, s)
		}
		if err := old.Ping(ctx).Err(); err != nil {
			t.Errorf("%s: the connection open before the reload: %v", srv.who, err)
		}
		old.Close()
		want := "-ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs.\r\n"
		if r := raw.Do(t, "CONFIG", "SET", "tls-cert-file", p.file("missing.crt")); r != want {
			t.Errorf("%s: CONFIG SET of a missing file: %q, want %q", srv.who, r, want)
		}
		if r := raw.Do(t, "CONFIG", "GET", "tls-cert-file"); !strings.Contains(r, "server2.crt") {
			t.Errorf("%s: CONFIG GET tls-cert-file after a refused SET: %q", srv.who, r)
		}
		// A certificate without its key is refused too.
		if r := raw.Do(t, "CONFIG", "SET", "tls-cert-file", p.file("server.crt")); r != want {
			t.Errorf("%s: CONFIG SET of a certificate not matching the key: %q", srv.who, r)
		}
		if s := peerSerial(t, srv.tlsAddr, conf); s != "1002" {
			t.Errorf("%s: serial %s after refused CONFIG SETs, want 1002 still", srv.who, s)
		}
	}
}

// With port 0 and tls-port set, qlessd serves TLS only, as Redis does.
func TestTLSOnly(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	tp := freePort(t)
	q := StartQlessd(t, "", append(p.serverArgs(tp), "--port", "0")...)
	addr := "127.0.0.1:" + strconv.Itoa(tp)
	if q.Addr != addr {
		t.Fatalf("started on %s, want the TLS port %s", q.Addr, addr)
	}
	if err := tlsPing(addr, clientConfig(p.ca, p.client)); err != nil {
		t.Fatalf("PING over TLS: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: clientConfig(p.ca, p.client)})
	defer c.Close()
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil || !strings.Contains(info, "tcp_port:0\r\n") {
		t.Errorf("INFO server over TLS only: tcp_port not 0 (%v):\n%s", err, info)
	}
}

// Without a CA, or with a certificate file missing, TLS cannot be set up:
// qlessd refuses to start, as redis-server does.
func TestTLSStartRefused(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	for name, args := range map[string][]string{
		"no CA": {"--tls-port", "0", "--tls-cert-file", p.file("server.crt"), "--tls-key-file", p.file("server.key")},
		"missing certificate": {"--tls-port", "0", "--tls-cert-file", p.file("missing.crt"),
			"--tls-key-file", p.file("server.key"), "--tls-ca-cert-file", p.caFile},
	} {
		args[1] = strconv.Itoa(freePort(t))
		for _, bin := range []string{redisServerPath(t), binary(t)} {
			all := append([]string{"--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir()}, args...)
			cmd := exec.Command(bin, all...)
			done := make(chan error, 1)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s: %s exited 0, want a failure:\n%s", name, bin, out.String())
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("%s: %s started, want it refused:\n%s", name, bin, out.String())
			}
		}
	}
}

// With tls-port set the HTTP listener serves HTTPS with the same
// certificate (http-tls yes, the default), asking for client certificates
// as http-tls-auth-clients says (default no, whatever tls-auth-clients
// says); http-tls no keeps it plain.
func TestTLSMetricsOverHTTPS(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	get := func(base string, conf *tls.Config) (int, string, error) {
		url := strings.Replace(base, "http://", "https://", 1) + "/metrics"
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: conf}}
		resp, err := c.Get(url)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	served := func(base string, conf *tls.Config) bool {
		code, body, err := get(base, conf)
		return err == nil && code == 200 && strings.Contains(body, "qlessd_")
	}
	// admitted: with our CA's client certificate, with none, with a foreign
	// CA's; a client not trusting the server's CA is never served.
	for mode, want := range map[string][3]bool{"": {true, true, true}, "no": {true, true, true},
		"optional": {true, true, false}, "yes": {true, false, false}} {
		args := p.serverArgs(freePort(t))
		if mode != "" {
			args = append(args, "--http-tls-auth-clients", mode)
		}
		_, base := StartQlessdHTTP(t, "", "127.0.0.1", args...)
		got := [3]bool{served(base, clientConfig(p.ca, p.client)), served(base, clientConfig(p.ca)),
			served(base, clientConfig(p.ca, p.foreign))}
		if got != want {
			t.Errorf("http-tls-auth-clients %q: served with our certificate, none, a foreign one: %v, want %v", mode, got, want)
		}
		if served(base, clientConfig(p.otherCA, p.client)) {
			t.Errorf("http-tls-auth-clients %q: a client trusting another CA was served", mode)
		}
		if mode != "" {
			continue
		}
		// net/http answers a plain request on an HTTPS listener with a 400.
		if resp, err := http.Get(base + "/metrics"); err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("plain HTTP on the HTTPS listener: %s", resp.Status)
			}
		}
	}

	_, plainBase := StartQlessdHTTP(t, "", "127.0.0.1", p.serverArgs(freePort(t), "--http-tls", "no")...)
	resp, err := http.Get(plainBase + "/metrics")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("http-tls no: GET /metrics: %v", err)
	}
	resp.Body.Close()
}

// Serving TLS only, the dashboard reaches its server over TLS.
func TestTLSOnlyDashboard(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	tp := freePort(t)
	_, base := StartQlessdHTTP(t, "", "127.0.0.1", append(p.serverArgs(tp), "--port", "0")...)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: clientConfig(p.ca, p.client)}}
	resp, err := c.Get(strings.Replace(base, "http://", "https://", 1) + "/api/queues")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/queues: %s\n%.300s", resp.Status, b)
	}
}

// A TLS client blocked in BLPOP that closes its connection (close_notify,
// then FIN) stops being a blocked client at once, as on Redis, and an
// element pushed later stays in the list.
func TestTLSBlockedClientLeaves(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	pair := startTLSPair(t, p)
	for _, srv := range []struct{ who, plain, tlsAddr string }{{"redis-server", pair.r.Addr, pair.rTLS}, {"qlessd", pair.q.Addr, pair.qTLS}} {
		ctl := DialRaw(t, srv.plain)
		c, err := tls.Dial("tcp", srv.tlsAddr, clientConfig(p.ca, p.client))
		if err != nil {
			t.Fatalf("%s: %v", srv.who, err)
		}
		if _, err := c.Write([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$1\r\n0\r\n")); err != nil {
			t.Fatalf("%s: %v", srv.who, err)
		}
		waitBlocked(t, ctl, 1)
		c.Close()
		waitBlocked(t, ctl, 0)
		ctl.Do(t, "RPUSH", "k", "x")
		if r := ctl.Do(t, "LLEN", "k"); r != ":1\r\n" {
			t.Errorf("%s: LLEN after the blocked client left: %q", srv.who, r)
		}
	}
}

// The tls-* parameters read back as Redis's do, defaults included.
func TestTLSConfigGetDefaults(t *testing.T) {
	t.Parallel()
	q, r := StartQlessd(t, ""), StartRedis(t)
	names := []string{"tls-port", "tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file",
		"tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphersuites", "tls-ciphers",
		"tls-prefer-server-ciphers", "tls-replication"}
	qc, rc := DialRaw(t, q.Addr), DialRaw(t, r.Addr)
	for _, n := range names {
		if a, b := qc.Do(t, "CONFIG", "GET", n), rc.Do(t, "CONFIG", "GET", n); a != b {
			t.Errorf("CONFIG GET %s: qlessd %q, redis-server %q", n, a, b)
		}
	}
	for _, set := range [][]string{{"tls-auth-clients", "optional"}, {"tls-auth-clients", "maybe"},
		{"tls-prefer-server-ciphers", "yes"}, {"tls-protocols", "TLSv1.2"}} {
		args := append([]string{"CONFIG", "SET"}, set...)
		if a, b := qc.Do(t, args...), rc.Do(t, args...); a != b {
			t.Errorf("CONFIG SET %v: qlessd %q, redis-server %q", set, a, b)
		}
		if a, b := qc.Do(t, "CONFIG", "GET", set[0]), rc.Do(t, "CONFIG", "GET", set[0]); a != b {
			t.Errorf("CONFIG GET %s after SET: qlessd %q, redis-server %q", set[0], a, b)
		}
	}
}

// A key encrypted in traditional PEM encryption loads with
// tls-key-file-pass, on qlessd as on redis-server.
func TestTLSKeyFilePass(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	b, err := os.ReadFile(p.file("server.key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sec1, err := x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the legacy format tls-key-file-pass reads
	enc, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", sec1, []byte("s3cret"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.file("server-enc.key"), pem.EncodeToMemory(enc), 0o600); err != nil {
		t.Fatal(err)
	}
	args := func(port int) []string {
		return []string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", p.file("server.crt"),
			"--tls-key-file", p.file("server-enc.key"), "--tls-key-file-pass", "s3cret", "--tls-ca-cert-file", p.caFile}
	}
	qp, rp := freePort(t), freePort(t)
	StartQlessd(t, "", args(qp)...)
	StartRedis(t, args(rp)...)
	for _, port := range []int{rp, qp} {
		if err := tlsPing("127.0.0.1:"+strconv.Itoa(port), clientConfig(p.ca, p.client)); err != nil {
			t.Errorf("port %d: PING with an encrypted key: %v", port, err)
		}
	}
}

// tls-protocols and tls-ciphers select the same versions and TLS 1.2
// suites on qlessd as on redis-server.
func TestTLSProtocolsAndCiphers(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	pair := startTLSPair(t, p, "--tls-protocols", "TLSv1.2", "--tls-ciphers", "ECDHE-ECDSA-AES256-GCM-SHA384")
	for _, srv := range []struct{ who, addr string }{{"redis-server", pair.rTLS}, {"qlessd", pair.qTLS}} {
		only13 := clientConfig(p.ca, p.client)
		only13.MinVersion = tls.VersionTLS13
		if err := tlsPing(srv.addr, only13); err == nil {
			t.Errorf("%s: a TLS 1.3-only client was served under tls-protocols TLSv1.2", srv.who)
		}
		other := clientConfig(p.ca, p.client)
		other.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
		if err := tlsPing(srv.addr, other); err == nil {
			t.Errorf("%s: a client offering only a suite tls-ciphers leaves out was served", srv.who)
		}
		c, err := tls.Dial("tcp", srv.addr, clientConfig(p.ca, p.client))
		if err != nil {
			t.Fatalf("%s: %v", srv.who, err)
		}
		st := c.ConnectionState()
		c.Close()
		if st.Version != tls.VersionTLS12 || st.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 {
			t.Errorf("%s: negotiated %s with %s, want TLS 1.2 with ECDHE-ECDSA-AES256-GCM-SHA384", srv.who,
				tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite))
		}
	}
}
