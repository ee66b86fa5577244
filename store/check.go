package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ErrNoDataFile is a data directory without a data file (qlessd check).
var ErrNoDataFile = errors.New("there is no data file")

// LockDataDir takes dir's lock (LockFile) as a starting server does, for
// qlessd check: a *DirInUseError while a server, or another check, uses
// dir. A missing directory is ErrNoDataFile, and is not created.
func LockDataDir(dir string) (release func(), err error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w in %s (no such directory)", ErrNoDataFile, dir)
	}
	l, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// CheckDataFile reads the data file of directory dir as start-up would,
// without loading it, and reports what it found (qlessd check). A missing
// file is ErrNoDataFile.
func CheckDataFile(dir string) (path string, rep JournalReport, err error) {
	path = filepath.Join(dir, DataFile)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return path, rep, fmt.Errorf("%w in %s (no %s)", ErrNoDataFile, dir, DataFile)
	}
	if err != nil {
		return path, rep, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return path, rep, err
	}
	rep, err = scanJournal(f, fi.Size(), func(record) error { return nil })
	return path, rep, err
}

// RepairDataFile cuts the data file of dir, as CheckDataFile reported it,
// to its good bytes, after copying the whole file beside it; it returns the
// copy's path. qlessd must not run on dir meanwhile.
func RepairDataFile(dir string, rep JournalReport) (backup string, err error) {
	path := filepath.Join(dir, DataFile)
	backup = fmt.Sprintf("%s.broken-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	if err := copyFile(backup, path); err != nil {
		return "", fmt.Errorf("copy %s to %s: %w", path, backup, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return backup, err
	}
	defer f.Close()
	if err := f.Truncate(rep.Good); err != nil {
		return backup, err
	}
	return backup, f.Sync()
}

// copyFile copies src to a new file dst and syncs it and its directory.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dst))
}
