package server

import (
	"errors"
	"strconv"

	"github.com/qlessd/qlessd/tlsconf"
)

// setTLSPort applies CONFIG SET tls-port as Redis 7.0 does: another port
// opens a TLS listener there and closes the old one, 0 closes it; clients
// already connected stay. The new port is bound before the old one closes,
// so a port that cannot be bound changes nothing. With TLS off until now,
// the tls-* files are read first, and a set that does not load refuses
// the command with Redis's text.
//
// Two cases Redis allows are refused, both to keep qlessd reachable as it
// was started: with port 0 the TLS listener is the only one (the dashboard
// and shutdown follow it), and with tls-replication the other nodes reach
// this one through it.
func (s *Server) setTLSPort(value string) error {
	port, _ := strconv.Atoi(value)
	s.lns.mu.Lock()
	defer s.lns.mu.Unlock()
	s.mu.Lock()
	cur, plain, repl := s.cfg.TLSPort, s.cfg.Port, s.cfg.Settings["tls-replication"] == "yes"
	s.mu.Unlock()
	switch {
	case port == cur:
		return nil
	case s.life.stopping():
		return errors.New("the server is shutting down")
	case plain == 0:
		return errors.New("tls-port can't change while port is 0: it is the only listener")
	case repl:
		return errors.New("tls-port can't change under tls-replication: the cluster nodes reach each other there")
	}
	var next *gatedListener
	if port != 0 {
		if err := s.ensureTLS(); err != nil {
			return err
		}
		var err error
		if next, err = s.openListener(s.cfg.Bind, port); err != nil {
			s.logBindFailure(err)
			return errListenPort
		}
		s.serveTLS(next, false)
	}
	s.lns.swapTLS(next)
	s.mu.Lock()
	s.cfg.TLSPort = port
	s.cfg.Settings["tls-port"] = value
	s.mu.Unlock()
	return nil
}

// ensureTLS loads the TLS material from the tls-* parameters when TLS was
// off (no tls-port at start).
func (s *Server) ensureTLS() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.TLS != nil {
		return nil
	}
	m, err := tlsconf.Load(tlsconf.ParamsFrom(func(n string) string { return s.cfg.Settings[n] }))
	if err != nil {
		s.cfg.Logger.Warn("Failed to configure TLS: "+err.Error(), "parameter", "tls-port")
		return errors.New("Unable to update TLS configuration. Check server logs.") //lint:ignore ST1005 Redis's text
	}
	s.cfg.TLS = tlsconf.NewHolder(m)
	return nil
}
