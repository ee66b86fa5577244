package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
)

// loadKeyPair reads a certificate and its key; a key encrypted the way
// OpenSSL's traditional PEM encryption does (Proc-Type: 4,ENCRYPTED) is
// decrypted with pass, as tls-key-file-pass does for Redis. Encrypted
// PKCS#8 keys (BEGIN ENCRYPTED PRIVATE KEY) are refused: Go's library does
// not read them.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %v", certFile, err) //lint:ignore ST1005 Redis's text
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err) //lint:ignore ST1005 Redis's text
	}
	if keyPEM, err = decryptKey(keyPEM, pass); err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err) //lint:ignore ST1005 Redis's text
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %v", certFile, err) //lint:ignore ST1005 Redis's text
	}
	return cert, nil
}

func decryptKey(keyPEM []byte, pass string) ([]byte, error) {
	block, _ := pem.Decode(keyPEM)
	switch {
	case block == nil:
		return keyPEM, nil // tls.X509KeyPair says what is wrong
	case block.Type == "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("encrypted PKCS#8 keys are not supported; use a key in traditional PEM encryption or none")
	case !x509.IsEncryptedPEMBlock(block): //lint:ignore SA1019 the format tls-key-file-pass reads
		return keyPEM, nil
	}
	der, err := x509.DecryptPEMBlock(block, []byte(pass)) //lint:ignore SA1019 the format tls-key-file-pass reads
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der}), nil
}

// openSSLCiphers names the TLS 1.2 cipher suites Go offers as OpenSSL,
// and so tls-ciphers, names them.
var openSSLCiphers = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// cipherList reads tls-ciphers, an OpenSSL cipher list: the suites it
// names, in its order. OpenSSL's keywords and operators (DEFAULT, HIGH,
// !aNULL...) select nothing here; a list of only those keeps Go's
// defaults. A list naming ciphers of which Go knows none is refused, as
// OpenSSL refuses a list that selects nothing.
func cipherList(v string) ([]uint16, error) {
	var ids []uint16
	named := false
	for _, name := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		if strings.ContainsAny(name[:1], "!-+@") || !strings.Contains(name, "-") {
			continue // a keyword or an operator
		}
		named = true
		if id, ok := openSSLCiphers[strings.ToUpper(name)]; ok {
			ids = append(ids, id)
		}
	}
	if named && len(ids) == 0 {
		return nil, fmt.Errorf("Failed to configure ciphers: %s", v) //lint:ignore ST1005 Redis's text
	}
	return ids, nil
}

// tls13Suites are the TLS 1.3 suites OpenSSL, and tls-ciphersuites, name.
var tls13Suites = map[string]bool{"TLS_AES_128_GCM_SHA256": true, "TLS_AES_256_GCM_SHA384": true,
	"TLS_CHACHA20_POLY1305_SHA256": true, "TLS_AES_128_CCM_SHA256": true, "TLS_AES_128_CCM_8_SHA256": true}

// checkSuites checks tls-ciphersuites. Go does not let a server choose its
// TLS 1.3 suites (all three it has are safe), so a valid list is accepted
// and changes nothing.
func checkSuites(v string) error {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	for _, name := range strings.Split(v, ":") {
		if tls13Suites[strings.ToUpper(strings.TrimSpace(name))] {
			return nil
		}
	}
	return fmt.Errorf("Failed to configure ciphersuites: %s", v) //lint:ignore ST1005 Redis's text
}
