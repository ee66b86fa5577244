package server

import (
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/tlsconf"
)

// TLS clients (tls-port) are served as plain ones are: by the event loops
// once their handshake is done (loop_tls.go), by a goroutine each with
// --event-loop no.

// tlsConn is a TLS client's connection. It gives the TCP socket under it,
// for CLIENT LIST's fd and for noticing a blocked client has gone.
type tlsConn struct{ *tls.Conn }

// SyscallConn gives the TCP socket.
func (c tlsConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.NetConn().(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// IsTLS reports whether c is a client connection of the TLS port.
func IsTLS(c net.Conn) bool {
	_, ok := c.(tlsConn)
	return ok
}

// listenTLS binds tls-port; its accepting goroutine hands each connection,
// as TLS, to take.
func (s *Server) listenTLS(drained chan struct{}) error {
	if s.cfg.TLSPort == 0 {
		return nil
	}
	if s.cfg.TLS == nil {
		return errors.New("tls-port is set but TLS is not configured")
	}
	inner, err := net.Listen("tcp", net.JoinHostPort(s.cfg.Bind, strconv.Itoa(s.cfg.TLSPort)))
	if err != nil {
		return err
	}
	s.lns.tls = &gatedListener{Listener: inner, drained: drained, retired: make(chan struct{})}
	s.serveTLS(s.lns.tls, s.cfg.Port == 0)
	return nil
}

// serveTLS accepts ln's connections as TLS in a goroutine; only says it is
// the accepting goroutine close waits for, when only TLS is served.
func (s *Server) serveTLS(ln *gatedListener, only bool) {
	conf := s.cfg.TLS.ServerConfig()
	go func() {
		s.acceptLoop(ln, func(c net.Conn) { s.take(newTLSConn(c, conf)) })
		if only && len(s.loops) == 0 {
			s.life.accepted() // TLS only, without loops: this is the accepting goroutine close waits for
		}
	}()
}

// handshakeTimeout bounds a TLS client's handshake, so a connection that
// never completes one does not hold its goroutine and descriptor for good.
const handshakeTimeout = 10 * time.Second

// handshake completes a TLS client's handshake, on a goroutine of its
// own, before the connection is admitted (a refusal then reaches the client encrypted); it reports
// false, having logged why as Redis does, when it fails. Plain connections
// pass.
func (s *Server) handshake(nc net.Conn) bool {
	tc, ok := nc.(tlsConn)
	if !ok {
		return true
	}
	tc.SetDeadline(time.Now().Add(handshakeTimeout))
	err := tc.Handshake()
	tc.SetDeadline(time.Time{})
	if err != nil {
		s.cfg.Logger.Debug("Error accepting a client connection: "+err.Error(), "addr", nc.RemoteAddr().String())
		return false
	}
	return true
}

// TLSOnly reports whether only TLS clients are served (port 0 with
// tls-port).
func (s *Server) TLSOnly() bool { return s.cfg.Port == 0 && s.cfg.TLSPort != 0 }

// TLSAddr returns the TLS listener's address, nil without one.
func (s *Server) TLSAddr() net.Addr { return s.lns.tlsAddr() }

// TLS returns the TLS material holder (nil when TLS is off), which
// CONFIG SET of a tls-* parameter reloads; the HTTP listener and the
// cluster share it.
func (s *Server) TLS() *tlsconf.Holder { return s.cfg.TLS }

// isTLSParam reports whether a parameter is read when TLS is configured.
func isTLSParam(name string) bool {
	for _, n := range tlsconf.Names {
		if n == name {
			return true
		}
	}
	return false
}

// setTLS applies the tls-* parameters of one CONFIG SET together, as Redis
// reconfigures TLS once after setting them all (a new certificate and its
// key come in one command): the files are read, and only if everything
// loads do the values and the material change. TLS off, the values are
// only kept. It returns the name to blame in the error.
func (s *Server) setTLS(names, values []string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]string, len(tlsconf.Names))
	for _, n := range tlsconf.Names {
		next[n] = s.cfg.Settings[n]
	}
	for i, n := range names {
		next[n] = values[i]
	}
	if s.cfg.TLS != nil {
		m, err := tlsconf.Load(tlsconf.ParamsFrom(func(n string) string { return next[n] }))
		if err != nil {
			s.cfg.Logger.Warn("Failed to configure TLS: "+err.Error(), "parameter", names[0])
			return names[0], errors.New("Unable to update TLS configuration. Check server logs.") //lint:ignore ST1005 Redis's text
		}
		s.cfg.TLS.Set(m)
	}
	for i, n := range names {
		s.cfg.Settings[n] = values[i]
	}
	return "", nil
}

// SetConfigs implements commands.ConfigBatch: the tls-* parameters are
// applied first and together, so a TLS configuration that does not load
// refuses the whole command before anything changed; then the others one
// by one.
func (s *Server) SetConfigs(names, values []string) (string, error) {
	var tn, tv, on, ov []string
	for i, n := range names {
		if isTLSParam(n) {
			tn, tv = append(tn, n), append(tv, values[i])
		} else {
			on, ov = append(on, n), append(ov, values[i])
		}
	}
	// As Redis 7.0, one CONFIG SET is all or nothing: a parameter that
	// fails to apply (a port that cannot be bound) puts back the ones
	// applied before it.
	before := s.ConfigValues()
	if len(tn) > 0 {
		if name, err := s.setTLS(tn, tv); err != nil {
			return name, err
		}
	}
	for i, n := range on {
		if err := s.SetConfig(n, ov[i]); err != nil {
			s.restoreConfigs(before, tn, on[:i])
			return n, err
		}
	}
	return "", nil
}

// restoreConfigs sets back the values before had of the tls-* parameters
// tls and the others in others (applied, in that order).
func (s *Server) restoreConfigs(before map[string]string, tls, others []string) {
	for i := len(others) - 1; i >= 0; i-- {
		if v, ok := before[others[i]]; ok {
			s.SetConfig(others[i], v)
		}
	}
	if len(tls) > 0 {
		old := make([]string, len(tls))
		for i, n := range tls {
			old[i] = before[n]
		}
		s.setTLS(tls, old)
	}
}
