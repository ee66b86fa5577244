// Package tlsconf turns Redis 7.0's tls-* parameters into crypto/tls
// configurations, and holds the current one so that CONFIG SET can swap
// certificates while the listeners run: connections already open keep the
// certificate they shook hands with, new ones get the new one.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// Params are the tls-* parameters, as CONFIG GET gives them.
type Params struct {
	CertFile     string // tls-cert-file
	KeyFile      string // tls-key-file
	KeyFilePass  string // tls-key-file-pass
	CACertFile   string // tls-ca-cert-file
	CACertDir    string // tls-ca-cert-dir
	AuthClients  string // tls-auth-clients: yes, no or optional
	Protocols    string // tls-protocols: "" or names like "TLSv1.2 TLSv1.3"
	Ciphersuites string // tls-ciphersuites (TLS 1.3), OpenSSL's names
	Ciphers      string // tls-ciphers (TLS 1.2 and older), OpenSSL's names
}

// Names are the parameters a Params is read from, in Params' order: a
// CONFIG SET of any of them rebuilds the configuration.
var Names = []string{"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file",
	"tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphersuites", "tls-ciphers"}

// ParamsFrom reads the parameters with get (a settings lookup by name).
func ParamsFrom(get func(name string) string) Params {
	return Params{CertFile: get("tls-cert-file"), KeyFile: get("tls-key-file"), KeyFilePass: get("tls-key-file-pass"),
		CACertFile: get("tls-ca-cert-file"), CACertDir: get("tls-ca-cert-dir"), AuthClients: get("tls-auth-clients"),
		Protocols: get("tls-protocols"), Ciphersuites: get("tls-ciphersuites"), Ciphers: get("tls-ciphers")}
}

// Material is what a configuration is built from, read from the files once:
// the certificate and the pool of CAs clients and peers are checked against.
type Material struct {
	Cert    tls.Certificate
	CAs     *x509.CertPool
	auth    tls.ClientAuthType
	min     uint16
	max     uint16
	ciphers []uint16
}

// Load reads the files p names and checks every parameter, as Redis does
// when TLS is configured (at start, and on CONFIG SET of a tls-* parameter):
// a certificate, its key and a CA (file or directory) are required.
func Load(p Params) (*Material, error) {
	m := &Material{}
	var err error
	if m.auth, err = ClientAuth(p.AuthClients); err != nil {
		return nil, err
	}
	if m.min, m.max, err = protocols(p.Protocols); err != nil {
		return nil, err
	}
	if err = checkSuites(p.Ciphersuites); err != nil {
		return nil, err
	}
	if m.ciphers, err = cipherList(p.Ciphers); err != nil {
		return nil, err
	}
	if p.CertFile == "" || p.KeyFile == "" {
		return nil, errors.New("tls-cert-file and tls-key-file must both be set")
	}
	if m.Cert, err = loadKeyPair(p.CertFile, p.KeyFile, p.KeyFilePass); err != nil {
		return nil, err
	}
	if m.CAs, err = loadCAs(p.CACertFile, p.CACertDir); err != nil {
		return nil, err
	}
	return m, nil
}

// Server is the configuration a client-facing listener hands each new
// connection.
//
// Client certificates are checked against the CAs here rather than by
// crypto/tls, which would name the CAs in its certificate request; a Go
// client then offers no certificate those do not sign, where OpenSSL (and
// Redis, which names none) offers its own and is refused. Checked here,
// clients are admitted and refused as Redis admits and refuses them.
func (m *Material) Server() *tls.Config { return m.ServerAuth(m.auth) }

// ServerAuth is Server asking for client certificates as auth says rather
// than as tls-auth-clients does: the HTTP listener's own setting.
func (m *Material) ServerAuth(auth tls.ClientAuthType) *tls.Config {
	c := &tls.Config{
		Certificates: []tls.Certificate{m.Cert},
		ClientAuth:   auth,
		MinVersion:   m.min,
		MaxVersion:   m.max,
		CipherSuites: m.ciphers,
	}
	if auth != tls.NoClientCert {
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			return m.VerifyPeer(cs.PeerCertificates, x509.ExtKeyUsageClientAuth)
		}
	}
	return c
}

// VerifyPeer checks a peer's chain (none passes: the handshake already
// required one where it must) against the CAs, for the use given.
func (m *Material) VerifyPeer(chain []*x509.Certificate, usage x509.ExtKeyUsage) error {
	if len(chain) == 0 {
		return nil
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{Roots: m.CAs, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}

// Holder is the current configuration of a listener, swapped whole.
type Holder struct {
	cur atomic.Pointer[Material]
}

// NewHolder holds m.
func NewHolder(m *Material) *Holder {
	h := &Holder{}
	h.cur.Store(m)
	return h
}

// Set makes m the material new connections get.
func (h *Holder) Set(m *Material) { h.cur.Store(m) }

// Current is the material new connections get.
func (h *Holder) Current() *Material { return h.cur.Load() }

// ServerConfig is a listener's configuration: each handshake takes the
// material current at its start.
func (h *Holder) ServerConfig() *tls.Config {
	return &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return h.cur.Load().Server(), nil
	}}
}

// ServerConfigAuth is ServerConfig with client certificates asked for as
// auth says (see Material.ServerAuth).
func (h *Holder) ServerConfigAuth(auth tls.ClientAuthType) *tls.Config {
	return &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return h.cur.Load().ServerAuth(auth), nil
	}}
}

// ClientConfig is how this server reaches another (a cluster peer, or
// itself): it presents its own certificate and checks the other's chain
// against the CAs, without matching a host name, as Redis's replicas check
// their master.
func (h *Holder) ClientConfig() *tls.Config {
	return &tls.Config{
		InsecureSkipVerify: true, // the chain is checked in VerifyConnection; no host name to match
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return &h.cur.Load().Cert, nil
		},
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server presented no certificate")
			}
			return h.cur.Load().VerifyPeer(cs.PeerCertificates, x509.ExtKeyUsageServerAuth)
		},
	}
}

// ClientAuth reads a tls-auth-clients value (yes, optional or no).
func ClientAuth(v string) (tls.ClientAuthType, error) {
	switch strings.ToLower(v) {
	case "", "yes":
		return tls.RequireAnyClientCert, nil
	case "optional":
		return tls.RequestClientCert, nil
	case "no":
		return tls.NoClientCert, nil
	}
	return 0, fmt.Errorf("tls-auth-clients must be yes, no or optional, not %q", v)
}

//lint:ignore ST1005 Redis's text
var errInvalidProtocols = errors.New("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")

// protocols reads tls-protocols; Go takes a range of versions, so a list
// with a gap (TLSv1 TLSv1.2) serves the whole range. Empty is Redis's
// default, TLS 1.2 and 1.3.
func protocols(v string) (lo, hi uint16, err error) {
	if strings.TrimSpace(v) == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, name := range strings.Fields(v) {
		var ver uint16
		switch strings.ToLower(name) {
		case "tlsv1":
			ver = tls.VersionTLS10
		case "tlsv1.1":
			ver = tls.VersionTLS11
		case "tlsv1.2":
			ver = tls.VersionTLS12
		case "tlsv1.3":
			ver = tls.VersionTLS13
		default:
			return 0, 0, errInvalidProtocols
		}
		if lo == 0 || ver < lo {
			lo = ver
		}
		hi = max(hi, ver)
	}
	return lo, hi, nil
}

// loadCAs reads the CA certificates of a file, a directory's files, or
// both; one of them must be set, as Redis requires.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	if file == "" && dir == "" {
		return nil, errors.New("Either tls-ca-cert-file or tls-ca-cert-dir must be specified") //lint:ignore ST1005 Redis's text
	}
	pool := x509.NewCertPool()
	if file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %v", err) //lint:ignore ST1005 Redis's text
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: no certificate in %s", file) //lint:ignore ST1005 Redis's text
		}
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %v", err) //lint:ignore ST1005 Redis's text
		}
		for _, e := range entries {
			if pem, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && !e.IsDir() {
				pool.AppendCertsFromPEM(pem)
			}
		}
	}
	return pool, nil
}
