package server

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// poller is the event loop's readiness source: level-triggered epoll over
// the loop's sockets, plus a pipe that other goroutines write to wake it.
type poller struct {
	ep     int
	wakeR  int
	wakeW  int
	events []syscall.EpollEvent
}

// wakeID is the event id of the wake pipe; connections count from 1.
const wakeID = 0

func newPoller() (*poller, error) {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(ep)
		return nil, err
	}
	pl := &poller{ep: ep, wakeR: p[0], wakeW: p[1], events: make([]syscall.EpollEvent, 256)}
	if err := pl.add(pl.wakeR, wakeID); err != nil {
		pl.close()
		return nil, err
	}
	return pl, nil
}

// What a connection is watched for.
const (
	watchIn  uint8 = 1 << iota // input, the end of it, errors
	watchOut                   // room for output
)

// add watches fd for input under id. The id, not the fd, names the
// connection in events, so a closed and reused descriptor can never be
// taken for the old connection.
func (p *poller) add(fd int, id uint32) error {
	return syscall.EpollCtl(p.ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: epollEvents(watchIn), Fd: int32(id)})
}

// watch changes what fd is watched for, from was. Nothing (0) takes fd out
// of the poller, as a mask of 0 would still report hang-ups.
func (p *poller) watch(fd int, id uint32, was, what uint8) error {
	switch {
	case what == 0:
		return syscall.EpollCtl(p.ep, syscall.EPOLL_CTL_DEL, fd, nil)
	case was == 0:
		return syscall.EpollCtl(p.ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: epollEvents(what), Fd: int32(id)})
	}
	return syscall.EpollCtl(p.ep, syscall.EPOLL_CTL_MOD, fd, &syscall.EpollEvent{Events: epollEvents(what), Fd: int32(id)})
}

func epollEvents(what uint8) uint32 {
	var ev uint32
	if what&watchIn != 0 {
		ev |= syscall.EPOLLIN | syscall.EPOLLRDHUP
	}
	if what&watchOut != 0 {
		ev |= syscall.EPOLLOUT
	}
	return ev
}

func (p *poller) remove(fd int) {
	syscall.EpollCtl(p.ep, syscall.EPOLL_CTL_DEL, fd, nil)
}

// readyEvent is one connection's readiness.
type readyEvent struct {
	id       uint32
	readable bool // data, end of stream or an error: a read tells which
	writable bool
}

// wait returns the ready events, at most timeoutMs later (-1: no limit).
func (p *poller) wait(out []readyEvent, timeoutMs int) ([]readyEvent, error) {
	n, err := syscall.EpollWait(p.ep, p.events, timeoutMs)
	if err != nil {
		if err == syscall.EINTR {
			return out, nil
		}
		return out, err
	}
	for _, ev := range p.events[:n] {
		id := uint32(ev.Fd)
		if id == wakeID {
			var buf [64]byte
			for {
				if n, _ := syscall.Read(p.wakeR, buf[:]); n <= 0 {
					break
				}
			}
			continue // what woke the loop is in its hand-over lists
		}
		out = append(out, readyEvent{
			id:       id,
			readable: ev.Events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0,
			writable: ev.Events&syscall.EPOLLOUT != 0,
		})
	}
	return out, nil
}

// wake makes a wait return now; a full pipe means a wake is pending anyway.
func (p *poller) wake() {
	syscall.Write(p.wakeW, []byte{0})
}

func (p *poller) close() {
	syscall.Close(p.wakeR)
	syscall.Close(p.wakeW)
	syscall.Close(p.ep)
}

// Socket I/O on descriptors the loop owns. Reads and writes never block:
// the descriptors are non-blocking, as Go made them before handing over.

func sockRead(fd int, p []byte) (int, error)  { return uninterrupted(syscall.Read, fd, p) }
func sockWrite(fd int, p []byte) (int, error) { return uninterrupted(syscall.Write, fd, p) }

// uninterrupted repeats a read or write that a signal interrupted.
func uninterrupted(op func(int, []byte) (int, error), fd int, p []byte) (int, error) {
	for {
		n, err := op(fd, p)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

func wouldBlock(err error) bool { return err == syscall.EAGAIN || err == syscall.EWOULDBLOCK }

func closeFD(fd int) { syscall.Close(fd) }

// clientWaiting reports whether a client waits to be accepted on the
// listening socket fd, or comes within ms milliseconds, without accepting
// it.
func clientWaiting(fd uintptr, ms int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, ms)
	return err != nil || n > 0
}

// takeFD duplicates the socket under c for the loop, which then closes c:
// Go's poller forgets the socket, and the loop alone watches it.
func takeFD(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, errors.New("not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if err := raw.Control(func(f uintptr) {
		fd, derr = syscall.Dup(int(f))
		if derr == nil {
			syscall.CloseOnExec(fd)
		}
	}); err != nil {
		return -1, err
	}
	return fd, derr
}
