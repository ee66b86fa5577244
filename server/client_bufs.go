package server

import (
	"strconv"
	"sync/atomic"
	"unsafe"
)

// connBufs is what a connection's buffers held when it last finished a
// turn (event loop) or went to wait for input (own goroutine): its own
// goroutine publishes them, CLIENT LIST reads them from any client's.
type connBufs struct {
	in, inCap   atomic.Int64 // input not run yet; the input buffer's size
	out, outCap atomic.Int64 // replies not sent yet; the reply buffer's size
	multi       atomic.Int64 // bytes of the commands MULTI queued
}

func (b *connBufs) publish(in, inCap, out, outCap int) {
	b.in.Store(int64(in))
	b.inCap.Store(int64(inCap))
	b.out.Store(int64(out))
	b.outCap.Store(int64(outCap))
}

// clientMem is CLIENT LIST's memory fields of one client.
type clientMem struct {
	qbuf, qbufFree, qbufCap, qbufPeak int64
	argv, multi, obl, omem, tot       int64
}

// clientOverhead is the memory of a client's structures besides its
// buffers, which tot-mem counts as Redis counts its client struct.
const clientOverhead = int64(unsafe.Sizeof(session{}) + unsafe.Sizeof(loopConn{}))

// memory returns sess's CLIENT LIST memory fields. args is the running
// command's when sess is the caller: Redis's query buffer still holds
// it, and argv-mem is its arguments.
func (sess *session) memory(args [][]byte) clientMem {
	b := &sess.bufs
	m := clientMem{qbuf: b.in.Load(), qbufCap: b.inCap.Load(), omem: b.out.Load(), multi: b.multi.Load()}
	if args != nil {
		m.qbuf += requestSize(args)
		for _, a := range args {
			m.argv += int64(len(a))
		}
		// The caller's own buffer, which its goroutine may look at.
		if oc := sess.own; oc != nil {
			m.qbufCap = int64(cap(oc.in))
		} else if lc := sess.lc; lc != nil && !lc.gone {
			m.qbufCap = int64(cap(lc.in))
		}
		m.qbufCap = max(m.qbufCap, m.qbuf)
	}
	m.qbufFree = max(m.qbufCap-m.qbuf, 0)
	m.qbufPeak = m.qbuf
	m.tot = clientOverhead + m.qbufCap + m.argv + m.multi + b.outCap.Load()
	return m
}

// requestSize is the size of args sent as a RESP request.
func requestSize(args [][]byte) int64 {
	n := 1 + len(strconv.Itoa(len(args))) + 2
	for _, a := range args {
		n += 1 + len(strconv.Itoa(len(a))) + 2 + len(a) + 2
	}
	return int64(n)
}
