//go:build unix

package server

import (
	"errors"
	"syscall"
)

// raiseFDLimit raises the soft limit on open files toward want, as far as
// the process may: to want itself (with the hard limit, where the process
// is allowed to raise that), or else to the hard limit. It returns the
// soft limit before and after, and why want could not be had.
func raiseFDLimit(want uint64) (was, have uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	was = lim.Cur
	if lim.Cur >= want {
		return was, lim.Cur, nil
	}
	err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: want, Max: max(want, lim.Max)})
	if err == nil {
		return was, want, nil
	}
	if lim.Cur < lim.Max {
		up := syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &up) == nil {
			return was, lim.Max, err
		}
	}
	return was, lim.Cur, err
}

// isFDLimit reports whether err is the process, or the system, out of file
// descriptors.
func isFDLimit(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// openSpareFD takes a descriptor to give back when the limit is reached,
// so that a client can still be accepted and told why it is refused; -1
// when none could be had.
func openSpareFD() int {
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func closeSpareFD(fd int) { syscall.Close(fd) }
