package main

import (
	"crypto/tls"
	"fmt"

	"github.com/qlessd/qlessd/server"

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

// httpTLS is the HTTP listener's TLS configuration: tls-port's, unless
// http-tls is no; nil for plain HTTP. Client certificates are asked for as
// http-tls-auth-clients says, not tls-auth-clients: browsers seldom hold
// one, and the listener has its own guards (protected mode, requirepass
// beyond loopback, the Host allow-list).
func httpTLS(srv *server.Server, s settings) (*tls.Config, error) {
	if srv.TLS() == nil || s.int("tls-port") == 0 || !s.on("http-tls") {
		return nil, nil
	}
	auth, err := tlsconf.ClientAuth(s.str("http-tls-auth-clients"))
	if err != nil {
		return nil, err
	}
	return srv.TLS().ServerConfigAuth(auth), nil
}
