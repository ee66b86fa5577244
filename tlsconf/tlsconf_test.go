package tlsconf

import (
	"crypto/tls"
	"testing"
)

func TestProtocols(t *testing.T) {
	for v, want := range map[string][2]uint16{
		"":                 {tls.VersionTLS12, tls.VersionTLS13},
		"TLSv1.2":          {tls.VersionTLS12, tls.VersionTLS12},
		"tlsv1.3 TLSv1":    {tls.VersionTLS10, tls.VersionTLS13},
		"TLSv1.1  TLSv1.2": {tls.VersionTLS11, tls.VersionTLS12},
	} {
		lo, hi, err := protocols(v)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("protocols(%q) = %x %x %v, want %x %x", v, lo, hi, err, want[0], want[1])
		}
	}
	if _, _, err := protocols("SSLv3"); err == nil {
		t.Error("SSLv3 accepted")
	}
}

func TestCipherList(t *testing.T) {
	ids, err := cipherList("ECDHE-RSA-AES128-GCM-SHA256:!aNULL:DEFAULT:ECDHE-ECDSA-AES256-GCM-SHA384")
	if err != nil || len(ids) != 2 || ids[0] != tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 {
		t.Errorf("cipherList = %x, %v", ids, err)
	}
	if ids, err := cipherList("HIGH:!MD5"); err != nil || ids != nil {
		t.Errorf("keywords only: %x, %v; want Go's defaults", ids, err)
	}
	if _, err := cipherList("NO-SUCH-CIPHER"); err == nil {
		t.Error("a list selecting nothing was accepted")
	}
	if err := checkSuites("TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"); err != nil {
		t.Error(err)
	}
	if err := checkSuites("TLS_NOPE"); err == nil {
		t.Error("an unknown TLS 1.3 suite list was accepted")
	}
}

func TestClientAuth(t *testing.T) {
	for v, want := range map[string]tls.ClientAuthType{"yes": tls.RequireAnyClientCert, "optional": tls.RequestClientCert, "no": tls.NoClientCert} {
		if got, err := ClientAuth(v); err != nil || got != want {
			t.Errorf("clientAuth(%q) = %v, %v", v, got, err)
		}
	}
}
