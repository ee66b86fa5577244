package server

import (
	"errors"
	"net"
	"strconv"
	"syscall"
)

// Redis 7.0's texts for a port or address that cannot be bound.
var (
	errListenPort = errors.New("Unable to listen on this port. Check server logs.") //lint:ignore ST1005 Redis's text
	errBindAddrs  = errors.New("Failed to bind to specified addresses.")            //lint:ignore ST1005 Redis's text
)

// setPort applies CONFIG SET port as Redis 7.0 does: the plain listener
// moves to the new port and clients already connected stay. The new port
// is bound before the old one closes, so one that cannot be bound changes
// nothing. Port 0 (no plain listener) is refused at run time, and so is
// a change while TLS is the only listener: the plain listener is the one
// shutdown waits on, and qlessd keeps the listeners it started with.
func (s *Server) setPort(value string) error {
	port, _ := strconv.Atoi(value)
	s.lns.mu.Lock()
	defer s.lns.mu.Unlock()
	if err := s.listenersMovable("port"); err != nil {
		return err
	}
	switch {
	case s.lns.plain == nil:
		return errors.New("port can't change while port is 0: tls-port is the only listener")
	case port == 0:
		return errors.New("port can't be set to 0 at run time: the plain listener stays until a restart")
	case port == s.lns.plainPortLocked(port):
		s.notePorts(port, s.cfg.Bind)
		return nil
	}
	next, err := s.openListener(s.cfg.Bind, port)
	if err != nil {
		s.logBindFailure(err)
		return errListenPort
	}
	s.serveMoved(next, nil)
	s.notePorts(port, s.cfg.Bind)
	s.cfg.Logger.Info("clients now connect here", "addr", next.Addr().String())
	return nil
}

// setBind applies CONFIG SET bind as Redis 7.0 does: the plain and TLS
// listeners move to the new address, clients already connected stay. Both
// are bound before either old one closes; when the new address overlaps
// the old (127.0.0.1 to 0.0.0.0 on the same port), the old ones close
// first, as Redis closes them, and come back if the new ones cannot be
// bound. On a failure nothing changes.
func (s *Server) setBind(value string) error {
	s.lns.mu.Lock()
	defer s.lns.mu.Unlock()
	if err := s.listenersMovable("bind"); err != nil {
		return err
	}
	if value == s.cfg.Bind {
		return nil
	}
	plain, secure, err := s.openBoth(value)
	if errors.Is(err, syscall.EADDRINUSE) {
		s.lns.pause()
		if plain, secure, err = s.openBoth(value); err != nil {
			s.logBindFailure(err)
			s.restoreBind()
			return errBindAddrs
		}
	}
	if err != nil {
		s.logBindFailure(err)
		return errBindAddrs
	}
	s.serveMoved(plain, secure)
	s.notePorts(s.cfg.Port, value)
	s.cfg.Logger.Info("clients now connect here", "addr", s.lns.addrLocked().String())
	return nil
}

// restoreBind opens the listeners setBind paused again on the address
// they had. Should another process have taken it meanwhile, the server
// goes on with the clients it has, and says so.
func (s *Server) restoreBind() {
	plain, secure, err := s.openBoth(s.cfg.Bind)
	if err != nil {
		s.cfg.Logger.Error("no listener now: the old address could not be bound again; CONFIG SET bind or port to serve new clients", "err", err)
		return
	}
	s.serveMoved(plain, secure)
}

// openBoth binds host at the ports of the listeners there are, without
// serving them; on a failure it closes what it opened.
func (s *Server) openBoth(host string) (plain, secure *gatedListener, err error) {
	if s.lns.plain != nil {
		if plain, err = s.openListener(host, s.lns.plainPortLocked(s.cfg.Port)); err != nil {
			return nil, nil, err
		}
	}
	if s.lns.tls != nil {
		if secure, err = s.openListener(host, s.cfg.TLSPort); err != nil {
			if plain != nil {
				plain.Listener.Close()
			}
			return nil, nil, err
		}
	}
	return plain, secure, nil
}

// serveMoved starts accepting on the new listeners and retires the ones
// they replace. s.lns.mu is held.
func (s *Server) serveMoved(plain, secure *gatedListener) {
	if plain != nil {
		s.acceptPlain(plain)
		s.lns.swapPlain(plain)
	}
	if secure != nil {
		s.serveTLS(secure, false)
		s.lns.swapTLS(secure)
	}
}

// listenersMovable refuses to move the listeners while the server stops,
// and in a cluster whose other nodes were told this node's client address
// as bind:port (cluster-advertise-client unset): they would relay clients
// to the old address.
func (s *Server) listenersMovable(name string) error {
	s.mu.Lock()
	clustered := s.cfg.Settings["cluster-node-id"] != "" && s.cfg.Settings["cluster-advertise-client"] == ""
	s.mu.Unlock()
	switch {
	case s.life.stopping():
		return errors.New("the server is shutting down")
	case clustered:
		return errors.New(name + " can't change in a cluster without cluster-advertise-client: the other nodes relay clients to bind:port")
	}
	return nil
}

// openListener binds host:port for a listener not yet served.
func (s *Server) openListener(host string, port int) (*gatedListener, error) {
	inner, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	return &gatedListener{Listener: inner, drained: s.life.drained, retired: make(chan struct{})}, nil
}

// acceptPlain accepts the plain listener's clients on a goroutine. Without
// event loops that goroutine is the one shutdown waits for, unless CONFIG
// SET retired its listener for another.
func (s *Server) acceptPlain(ln *gatedListener) {
	go func() {
		s.acceptLoop(ln, s.take)
		if len(s.loops) > 0 {
			return
		}
		select {
		case <-ln.retired:
		default:
			s.life.accepted()
		}
	}()
}

// logBindFailure says why a listener could not be opened, in Redis's
// words.
func (s *Server) logBindFailure(err error) {
	s.cfg.Logger.Warn("Could not create server TCP listening socket: " + err.Error())
}

// notePorts records the plain port and the address CONFIG GET and CONFIG
// REWRITE show.
func (s *Server) notePorts(port int, bind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Port, s.cfg.Bind = port, bind
	s.cfg.Settings["port"] = strconv.Itoa(port)
	s.cfg.Settings["bind"] = bind
}
