package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rewrite leaves no descriptor on the file it replaced: one kept holds
// that file's blocks, and on a full disk (writes refused, so no sync
// round comes to reopen the path) it held them until a restart; the
// durability probe saw the free space shrink by a rewrite's size each time.
func TestRewriteLetsGoOfTheReplacedFile(t *testing.T) {
	dir := t.TempDir()
	for _, sync := range []Sync{SyncAlways, SyncEverySec} {
		db := openSync(t, dir, sync)
		for i := 0; i < 3; i++ {
			db.Update(func(tx *Tx) error {
				tx.SetString("k", strings.Repeat("x", 4000), 0, false)
				return nil
			})
			if err := db.Save(); err != nil {
				t.Fatal(err)
			}
			if held := deletedFilesHeld(t, dir); len(held) > 0 {
				t.Fatalf("%v: after rewrite %d the process holds replaced files: %v", sync, i+1, held)
			}
		}
		db.Close()
	}
}

// deletedFilesHeld lists this process's descriptors on deleted files in dir.
func deletedFilesHeld(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	var held []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir) && strings.HasSuffix(target, " (deleted)") {
			held = append(held, fd.Name()+" -> "+target)
		}
	}
	return held
}
