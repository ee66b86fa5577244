package main

import (
	"fmt"

	"github.com/qlessd/qlessd/tlsconf"
)

// loadTLS reads the certificate, key and CAs when TLS is on (tls-port or
// tls-replication), as Redis refuses to start when they do not load; nil
// when TLS is off.
func loadTLS(s settings) (*tlsconf.Holder, error) {
	if s.int("tls-port") == 0 && !s.on("tls-replication") {
		return nil, nil
	}
	m, err := tlsconf.Load(tlsconf.ParamsFrom(s.str))
	if err != nil {
		return nil, fmt.Errorf("Failed to configure TLS: %v", err) //lint:ignore ST1005 Redis's text
	}
	return tlsconf.NewHolder(m), nil
}
