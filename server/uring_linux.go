package server

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// ring is an io_uring instance through which the event loop does a turn's
// socket reads, and then its writes, in one system call each instead of one
// per connection. On a virtual machine a system call's entry and exit cost
// about a microsecond, as much as a small read; measured on 25 loopback
// connections, a read and a write took 5.9 us of the loop's time per
// connection through read(2)/write(2) and 2.0 us through the ring.
//
// Every operation is non-blocking (MSG_DONTWAIT makes the kernel complete
// it with -EAGAIN rather than wait), so each one has finished when the
// io_uring_enter that submitted it returns; no buffer is held by the kernel
// past run.
type ring struct {
	fd      int
	sqHead  *uint32
	sqTail  *uint32
	cqHead  *uint32
	cqTail  *uint32
	sqMask  uint32
	cqMask  uint32
	size    uint32 // submission entries
	sqArray []uint32
	sqes    []ringSQE
	cqes    []ringCQE
	queued  uint32   // added since the last run
	held    [][]byte // the buffers of what was added: the kernel's addresses are not references the collector sees
	maps    [][]byte
}

const (
	sysRingSetup = 425
	sysRingEnter = 426

	ringOpSend = 26 // IORING_OP_SEND
	ringOpRecv = 27 // IORING_OP_RECV

	ringOffSQ   = 0          // IORING_OFF_SQ_RING
	ringOffCQ   = 0x8000000  // IORING_OFF_CQ_RING
	ringOffSQEs = 0x10000000 // IORING_OFF_SQES

	ringEnterGetEvents   = 1 << 0 // IORING_ENTER_GETEVENTS
	ringFeatSingleMmap   = 1 << 0 // IORING_FEAT_SINGLE_MMAP
	ringSetupSubmitAll   = 1 << 7 // IORING_SETUP_SUBMIT_ALL: an entry's error does not stop the rest
	ringSetupCoopTaskrun = 1 << 8 // IORING_SETUP_COOP_TASKRUN: no interrupt to run completions

	ringEntries = 128
)

// The kernel's structures (include/uapi/linux/io_uring.h).
type ringSQOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type ringCQOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type ringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  ringSQOffsets
	cqOff                                                                  ringCQOffsets
}

type ringSQE struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	msgFlags    uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

type ringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// newRing sets up a ring; it fails where the kernel has no io_uring or a
// sandbox forbids it, and the loop then reads and writes one call at a time.
func newRing() (*ring, error) {
	p := ringParams{flags: ringSetupSubmitAll | ringSetupCoopTaskrun}
	fd, err := ringSetup(&p)
	if err == syscall.EINVAL {
		// Kernels before 5.18 know neither flag.
		p = ringParams{}
		fd, err = ringSetup(&p)
	}
	if err != nil {
		return nil, err
	}
	r := &ring{fd: fd, size: p.sqEntries}
	if err := r.mapRings(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func ringSetup(p *ringParams) (int, error) {
	fd, _, errno := syscall.Syscall(sysRingSetup, ringEntries, uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, errno
	}
	syscall.CloseOnExec(int(fd))
	return int(fd), nil
}

func (r *ring) mapRings(p *ringParams) error {
	sqLen := int(p.sqOff.array + p.sqEntries*4)
	cqLen := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(ringCQE{})))
	single := p.features&ringFeatSingleMmap != 0
	if single {
		sqLen = max(sqLen, cqLen)
	}
	sq, err := r.mmap(ringOffSQ, sqLen)
	if err != nil {
		return err
	}
	cq := sq
	if !single {
		if cq, err = r.mmap(ringOffCQ, cqLen); err != nil {
			return err
		}
	}
	sqes, err := r.mmap(ringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(ringSQE{})))
	if err != nil {
		return err
	}
	r.sqHead = word(sq, p.sqOff.head)
	r.sqTail = word(sq, p.sqOff.tail)
	r.sqMask = *word(sq, p.sqOff.ringMask)
	r.sqArray = unsafe.Slice(word(sq, p.sqOff.array), p.sqEntries)
	r.cqHead = word(cq, p.cqOff.head)
	r.cqTail = word(cq, p.cqOff.tail)
	r.cqMask = *word(cq, p.cqOff.ringMask)
	r.cqes = unsafe.Slice((*ringCQE)(unsafe.Pointer(&cq[p.cqOff.cqes])), p.cqEntries)
	r.sqes = unsafe.Slice((*ringSQE)(unsafe.Pointer(&sqes[0])), p.sqEntries)
	return nil
}

func (r *ring) mmap(off int64, n int) ([]byte, error) {
	b, err := syscall.Mmap(r.fd, off, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err == nil {
		r.maps = append(r.maps, b)
	}
	return b, err
}

func word(m []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&m[off])) }

// add queues a non-blocking receive into b (recv true) or send of b on fd;
// its result goes to run's res[tag]. b must not be empty.
func (r *ring) add(recv bool, fd int, b []byte, tag int) {
	i := (*r.sqTail + r.queued) & r.sqMask
	op, flags := uint8(ringOpSend), uint32(syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
	if recv {
		op, flags = ringOpRecv, syscall.MSG_DONTWAIT
	}
	r.sqes[i] = ringSQE{opcode: op, fd: int32(fd), addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))),
		len: uint32(len(b)), msgFlags: flags, userData: uint64(tag)}
	r.sqArray[i] = i
	r.queued++
	r.held = append(r.held, b)
}

// run submits what was added and waits until all of it completed, putting
// each result (bytes moved, or -errno) in res by tag. An error means the
// ring no longer works; what was queued then did not run, or ran and its
// result is lost, which a later read or write finds out.
func (r *ring) run(res []int32) error {
	n := r.queued
	if n == 0 {
		return nil
	}
	r.queued = 0
	defer func() {
		clear(r.held)
		r.held = r.held[:0]
	}()
	atomic.StoreUint32(r.sqTail, *r.sqTail+n)
	submit, done := n, uint32(0)
	for retries := 0; done < n; {
		got, _, errno := syscall.Syscall6(sysRingEnter, uintptr(r.fd), uintptr(submit), uintptr(n-done), ringEnterGetEvents, 0, 0)
		switch {
		case errno == 0:
			submit -= min(uint32(got), submit)
		case errno == syscall.EINTR:
		case (errno == syscall.EAGAIN || errno == syscall.EBUSY) && retries < 100:
			retries++ // the kernel was short of memory for a moment
		default:
			return errno
		}
		done += r.reap(res)
	}
	return nil
}

// reap takes the completions posted so far.
func (r *ring) reap(res []int32) uint32 {
	head, tail := *r.cqHead, atomic.LoadUint32(r.cqTail)
	for i := head; i != tail; i++ {
		c := &r.cqes[i&r.cqMask]
		res[c.userData] = c.res
	}
	atomic.StoreUint32(r.cqHead, tail)
	return tail - head
}

func (r *ring) close() {
	for _, m := range r.maps {
		syscall.Munmap(m)
	}
	r.maps = nil
	syscall.Close(r.fd)
}

// ringResult splits a completion's result into bytes moved and an error.
func ringResult(res int32) (int, error) {
	if res >= 0 {
		return int(res), nil
	}
	return 0, syscall.Errno(-res)
}

// ringUnsupported is what a kernel older than the ring's operations (5.6)
// answers them with.
func ringUnsupported(res int32) bool { return res == -int32(syscall.EINVAL) }
