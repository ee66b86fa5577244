//go:build !linux

package server

import (
	"errors"
	"net"
)

// The event loop uses epoll; elsewhere each connection gets a goroutine.

type poller struct{}

const wakeID = 0

type readyEvent struct {
	id                 uint32
	readable, writable bool
}

var errNoLoop = errors.New("the event loop needs Linux")

func newPoller() (*poller, error)                                { return nil, errNoLoop }
func (p *poller) add(fd int, id uint32) error                    { return errNoLoop }
func (p *poller) watch(fd int, id uint32, was, what uint8) error { return errNoLoop }

const (
	watchIn uint8 = 1 << iota
	watchOut
)

func (p *poller) remove(fd int)                                       {}
func (p *poller) wait(out []readyEvent, ms int) ([]readyEvent, error) { return out, errNoLoop }
func (p *poller) wake()                                               {}
func (p *poller) close()                                              {}
func sockRead(fd int, b []byte) (int, error)                          { return 0, errNoLoop }
func sockWrite(fd int, b []byte) (int, error)                         { return 0, errNoLoop }
func wouldBlock(err error) bool                                       { return false }
func closeFD(fd int)                                                  {}
func takeFD(c net.Conn) (int, error)                                  { return -1, errNoLoop }
func clientWaiting(fd uintptr, ms int) bool                           { return true }
