package tests

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pki is a test's certificates, written as PEM files in a temporary
// directory: a CA, a server certificate it signed (serial 1001, for
// 127.0.0.1 and localhost, usable by a client too, as a cluster node's),
// a second one (serial 1002) for reloads, a client's (serial 2001), and
// a foreign CA with a client certificate of its own (serial 3001).
type pki struct {
	dir         string
	ca          *x509.CertPool
	otherCA     *x509.CertPool
	client      tls.Certificate
	foreign     tls.Certificate // signed by the other CA
	caFile      string
	otherCAFile string
}

// file is the path of a file of the pki's directory.
func (p *pki) file(name string) string { return filepath.Join(p.dir, name) }

type issuer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir()}
	ca := makeCA(t, p, "ca", 1)
	other := makeCA(t, p, "other-ca", 2)
	p.caFile, p.otherCAFile = p.file("ca.crt"), p.file("other-ca.crt")
	p.ca, p.otherCA = x509.NewCertPool(), x509.NewCertPool()
	p.ca.AddCert(ca.cert)
	p.otherCA.AddCert(other.cert)
	both := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	makeLeaf(t, p, ca, "server", 1001, both)
	makeLeaf(t, p, ca, "server2", 1002, both)
	p.client = makeLeaf(t, p, ca, "client", 2001, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
	p.foreign = makeLeaf(t, p, other, "foreign", 3001, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
	makeLeaf(t, p, other, "foreign-node", 3002, both)
	return p
}

func makeCA(t testing.TB, p *pki, name string, serial int64) issuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "qlessd test " + name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	writePEM(t, p.file(name+".crt"), "CERTIFICATE", der)
	return issuer{cert: cert, key: key}
}

// makeLeaf writes name.crt and name.key, signed by ca.
func makeLeaf(t testing.TB, p *pki, ca issuer, name string, serial int64, usage []x509.ExtKeyUsage) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, p.file(name+".crt"), "CERTIFICATE", der)
	writePEM(t, p.file(name+".key"), "PRIVATE KEY", keyDER)
	pair, err := tls.LoadX509KeyPair(p.file(name+".crt"), p.file(name+".key"))
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// serverArgs are the flags, as redis-server and qlessd both take them, of
// a TLS listener on port with the pki's server certificate and CA.
func (p *pki) serverArgs(port int, more ...string) []string {
	return append([]string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", p.file("server.crt"),
		"--tls-key-file", p.file("server.key"), "--tls-ca-cert-file", p.caFile}, more...)
}

// clientConfig trusts roots and presents certs (none when empty).
func clientConfig(roots *x509.CertPool, certs ...tls.Certificate) *tls.Config {
	return &tls.Config{RootCAs: roots, Certificates: certs, ServerName: "127.0.0.1"}
}

// tlsPing connects to addr over TLS with conf and sends PING: nil when
// PONG came back. A refused client certificate shows, under TLS 1.3, at
// the first read rather than in the handshake; the PING covers both.
func tlsPing(addr string, conf *tls.Config) error {
	c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: conf, MaxRetries: -1, DialTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, Protocol: 2, DisableIdentity: true})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// tlsClient is a go-redis client of addr over TLS.
func tlsClient(addr string, conf *tls.Config) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, TLSConfig: conf, Protocol: 2, PoolSize: 1, MaxRetries: -1,
		DialTimeout: 2 * time.Second, ReadTimeout: 5 * time.Second})
}

// peerSerial is the serial number of the certificate addr presents to a
// new TLS connection.
func peerSerial(t testing.TB, addr string, conf *tls.Config) string {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, conf)
	if err != nil {
		t.Fatalf("TLS dial %s: %v", addr, err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

// tlsPair is a qlessd and a redis-server 7.0 serving TLS with the same
// certificates and options.
type tlsPair struct {
	q, r       *Proc
	qTLS, rTLS string // their TLS addresses
}

func startTLSPair(t *testing.T, p *pki, more ...string) *tlsPair {
	t.Helper()
	qp, rp := freePort(t), freePort(t)
	q := StartQlessd(t, "", p.serverArgs(qp, more...)...)
	r := StartRedis(t, p.serverArgs(rp, more...)...)
	return &tlsPair{q: q, r: r, qTLS: "127.0.0.1:" + strconv.Itoa(qp), rTLS: "127.0.0.1:" + strconv.Itoa(rp)}
}
