package server

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// reservedFDs are the file descriptors kept beside the clients' sockets
// for the server's own (data files, pollers), as Redis keeps
// CONFIG_MIN_RESERVED_FDS.
const reservedFDs = 32

// fitMaxClients makes maxclients fit the open-file limit, as Redis does at
// start: the limit is raised as far as the process may, and maxclients
// lowered to what it leaves, with Redis's warnings. A limit too low for
// any client stops the start.
func fitMaxClients(cfg *Config) error {
	want := cfg.MaxClients
	if want <= 0 {
		return nil
	}
	need := uint64(want) + reservedFDs
	was, have, err := raiseFDLimit(need)
	log := cfg.Logger
	switch {
	case have == 0:
		log.Warn("cannot read the open-file limit: maxclients stays as set", "err", err)
		return nil
	case have >= need:
		if have > was {
			log.Info(fmt.Sprintf("Increased maximum number of open files to %d (it was originally set to %d).", have, was))
		}
		return nil
	case have <= reservedFDs:
		return redisMessage(fmt.Sprintf("Your current 'ulimit -n' of %d is not enough for the server to start. Please increase your open file limit to at least %d.", was, need))
	}
	cfg.MaxClients = int(have - reservedFDs)
	log.Warn(fmt.Sprintf("You requested maxclients of %d requiring at least %d max file descriptors.", want, need))
	log.Warn(fmt.Sprintf("Server can't set maximum open files to %d because of OS error: %v.", need, err))
	log.Warn(fmt.Sprintf("Current maximum open files is %d. maxclients has been reduced to %d to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.", have, cfg.MaxClients))
	return nil
}

// clientsFit checks a maxclients that CONFIG SET asks for against the
// open-file limit, raised as far as the process may, and gives Redis's
// refusal when it does not fit.
func clientsFit(n int) error {
	need := uint64(n) + reservedFDs
	_, have, _ := raiseFDLimit(need)
	if have == 0 || have >= need {
		return nil
	}
	return redisMessage(fmt.Sprintf("The operating system is not able to handle the specified number of clients, try with %d", int64(have)-reservedFDs))
}

// redisMessage is an error in Redis's own words, capitals and full stops
// kept, for the replies and log lines that must read as Redis's do.
type redisMessage string

func (m redisMessage) Error() string { return string(m) }

// acceptLoop takes connections from ln and hands each to serve, until ln
// closes. Out of file descriptors it gives up the one it keeps spare, to
// take the next client and tell it the server is full, as Redis tells a
// client past maxclients, rather than leave it waiting or spin on the error.
func (s *Server) acceptLoop(ln net.Listener, serve func(net.Conn)) {
	spare := openSpareFD()
	defer func() {
		if spare >= 0 {
			closeSpareFD(spare)
		}
	}()
	for {
		c, err := ln.Accept()
		switch {
		case err == nil:
			serve(c)
		case errors.Is(err, net.ErrClosed):
			return
		case isFDLimit(err):
			spare = s.acceptAtFDLimit(ln, spare, err, serve)
		default:
			s.cfg.Logger.Warn("accept failed", "err", err)
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// acceptAtFDLimit waits a moment for a client (accept fails at the limit
// whether one waits or not) and takes it with the spare descriptor. It
// serves the client if a spare can be had again, the limit being behind,
// and refuses it otherwise. Without a spare it waits a moment for
// descriptors to free up. It returns the spare.
func (s *Server) acceptAtFDLimit(ln net.Listener, spare int, err error, serve func(net.Conn)) int {
	if spare >= 0 {
		if !awaitClient(ln) {
			s.noteFull(err, false)
			return spare
		}
		closeSpareFD(spare)
		c, aerr := acceptWaiting(ln)
		spare = openSpareFD()
		switch {
		case aerr == nil && spare >= 0:
			serve(c)
			return spare
		case aerr == nil:
			s.refuseFull(c)
			return openSpareFD()
		}
	}
	s.noteFull(err, false)
	time.Sleep(10 * time.Millisecond)
	if spare < 0 {
		spare = openSpareFD()
	}
	return spare
}

// awaitClient reports whether a client waits to be accepted on ln, waiting
// up to a tenth of a second for one. (Go's poller does not wait for a
// listener without accepting.)
func awaitClient(ln net.Listener) bool {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	waiting := true
	if rc.Control(func(fd uintptr) { waiting = clientWaiting(fd, 100) }) != nil {
		return false // closed: the next accept says so
	}
	return waiting
}

// acceptWaiting accepts the client found waiting, giving up after a moment
// should it have gone meanwhile: the spare descriptor is given up no
// longer. (A deadline already past would fail the accept untried.)
func acceptWaiting(ln net.Listener) (net.Conn, error) {
	d, ok := ln.(interface{ SetDeadline(time.Time) error })
	if !ok {
		return nil, errors.ErrUnsupported
	}
	d.SetDeadline(time.Now().Add(50 * time.Millisecond))
	defer d.SetDeadline(time.Time{})
	return ln.Accept()
}

// refuseFull tells a client accepted while the server is out of file
// descriptors that it is full, and closes it.
func (s *Server) refuseFull(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	c.Write([]byte("-" + commands.ErrMaxClients + "\r\n"))
	c.Close()
	s.counts.rejected.Add(1)
	s.noteFull(syscall.EMFILE, true)
}

// noteFull logs that the server is out of file descriptors, at most once a
// second, with the clients refused since. Only the accepting goroutine
// calls it.
func (s *Server) noteFull(err error, refused bool) {
	if refused {
		s.fdFull.refused++
	}
	if time.Since(s.fdFull.logged) < time.Second {
		return
	}
	s.cfg.Logger.Warn("out of file descriptors: new clients are refused with 'max number of clients reached'",
		"refused", s.fdFull.refused, "err", err)
	s.fdFull.logged, s.fdFull.refused = time.Now(), 0
}
