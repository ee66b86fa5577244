package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/qlessd/qlessd/server"
)

// With tls-replication (Options.TLS set) everything one node sends another
// goes over mutual TLS with the nodes' certificate and CA: the Raft
// transport (a StreamLayer under hashicorp/raft's NetworkTransport), and
// the client port connections a follower makes to the leader (relayed
// clients, its pub/sub bridge, RAFT ANNOUNCE), which then reach the
// leader's TLS port (cluster-advertise-client defaults to bind:tls-port).
// Each side checks the other's chain against the CA, host names aside, as
// Redis's replicas and masters do, so a node holding a certificate of
// another CA can neither join nor be joined.

// tlsStream is the Raft transport's stream layer over TLS.
type tlsStream struct {
	net.Listener
	advertise net.Addr
	client    *tls.Config
}

func (s *tlsStream) Addr() net.Addr { return s.advertise }

func (s *tlsStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, "tcp", string(addr), s.client)
}

// newTLSTransport is NewTCPTransport's counterpart over mutual TLS.
func (n *Node) newTLSTransport(advertise *net.TCPAddr) (*raft.NetworkTransport, error) {
	inner, err := net.Listen("tcp", n.opts.Bind)
	if err != nil {
		return nil, err
	}
	h := n.opts.TLS
	conf := &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		c := h.Current().Server()
		c.ClientAuth = tls.RequireAnyClientCert // mutual, whatever tls-auth-clients says
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("a cluster peer must present a certificate")
			}
			return h.Current().VerifyPeer(cs.PeerCertificates, x509.ExtKeyUsageClientAuth)
		}
		return c, nil
	}}
	stream := &tlsStream{Listener: tls.NewListener(inner, conf), advertise: advertise, client: h.ClientConfig()}
	return raft.NewNetworkTransport(stream, 4, 5*time.Second, n.raftLog), nil
}

// dialClientPort connects to another node's client port: over TLS with
// tls-replication.
func (n *Node) dialClientPort(addr string) (net.Conn, error) {
	if n.opts.TLS == nil {
		return net.DialTimeout("tcp", addr, 2*time.Second)
	}
	return tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, n.opts.TLS.ClientConfig())
}

// peekable reports whether a client's first command can be peeked at on
// its socket: not through TLS, whose clients are all relayed.
func peekable(c net.Conn) bool { return !server.IsTLS(c) }
