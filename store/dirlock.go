package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LockFile is the file in a data directory that the process using the
// directory holds an exclusive flock on, and writes its pid into. Two
// processes appending to one data file each keep their own picture of it:
// after one rewrote the file, what the other had acknowledged since was
// gone. A cluster node's raft directory lies inside the data directory,
// so the one lock covers it too.
const LockFile = "qlessd.lock"

// DirInUseError is a data directory another process holds.
type DirInUseError struct {
	Dir string
	Pid int // 0 when the holder had not written its pid yet
}

func (e *DirInUseError) Error() string {
	if e.Pid == 0 {
		return fmt.Sprintf("data directory %s is in use by another process", e.Dir)
	}
	return fmt.Sprintf("data directory %s is in use by pid %d", e.Dir, e.Pid)
}

// dirLock is a held lock on a data directory; the kernel lets go of it
// when the process ends, however it ends.
type dirLock struct{ f *os.File }

// lockDir takes dir's lock without waiting and writes this process's pid
// into the lock file; a *DirInUseError when another process holds it.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &DirInUseError{Dir: dir, Pid: lockHolder(path)}
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	pid := strconv.Itoa(os.Getpid()) + "\n"
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(pid), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write lock file: %w", err)
	}
	return &dirLock{f: f}, nil
}

// lockHolder reads the pid the holder of a lock file wrote, waiting a
// little for a holder that has just taken the lock to write it.
func lockHolder(path string) int {
	for deadline := time.Now().Add(500 * time.Millisecond); ; {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// release lets go of the lock. The file stays: removing it could let a
// third process lock a new file while a second still waits on this one.
func (l *dirLock) release() {
	if l != nil {
		l.f.Close()
	}
}
