//go:build probes && linux

package tests

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loopFS is an ext4 filesystem in an image file, attached to a loop
// device and mounted. The image holds what the device was given; what
// ext4 still keeps in the page cache (written, not yet synced) is not in
// it, which is what the power-cut probe relies on.
type loopFS struct {
	image, dev, mnt string
}

// requireLoopFS skips the test where loop devices cannot be used: they
// need root, losetup and mkfs.ext4.
func requireLoopFS(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the probe attaches a loop device and mounts ext4 on it")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (util-linux, e2fsprogs): %v", tool, err)
		}
	}
}

// newLoopImage makes an ext4 image of sizeMB megabytes at path.
func newLoopImage(t *testing.T, path string, sizeMB int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(int64(sizeMB) << 20)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", path).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v\n%s", err, out)
	}
}

// mountLoop attaches image to a free loop device and mounts it; the test's
// cleanup unmounts it unless the probe did.
func mountLoop(t *testing.T, image string) *loopFS {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", image).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device to attach here: losetup: %v %s", err, out)
	}
	l := &loopFS{image: image, dev: strings.TrimSpace(string(out)), mnt: t.TempDir()}
	if out, err := exec.Command("mount", "-t", "ext4", l.dev, l.mnt).CombinedOutput(); err != nil {
		exec.Command("losetup", "-d", l.dev).Run()
		t.Fatalf("mount %s (%s) on %s: %v\n%s", l.dev, image, l.mnt, err, out)
	}
	t.Cleanup(l.unmount)
	return l
}

// unmount unmounts and detaches, once.
func (l *loopFS) unmount() {
	if l.dev == "" {
		return
	}
	exec.Command("umount", l.mnt).Run()
	exec.Command("losetup", "-d", l.dev).Run()
	l.dev = ""
}

// stat is the device's I/O counters (/sys/block/loopN/stat): requests
// done and in flight.
func (l *loopFS) stat() string {
	b, _ := os.ReadFile(filepath.Join("/sys/block", filepath.Base(l.dev), "stat"))
	return strings.Join(strings.Fields(string(b)), " ")
}

// powerCut copies the image to dst as the device holds it now: what
// reached the device is kept, the page cache is not. The copy counts only
// if the device's counters did not move while it was made, with nothing in
// flight (the kernel may still write back or commit ext4's journal after
// the process is killed); else it is made again.
func (l *loopFS) powerCut(dst string) error {
	for attempt := 0; attempt < 50; attempt++ {
		before := l.stat()
		if err := copyFile(l.image, dst); err != nil {
			return err
		}
		if after := l.stat(); after == before && inFlight(after) == "0" {
			return nil
		}
		time.Sleep(100 * time.Millisecond) // let the device settle, then copy again
	}
	return fmt.Errorf("%s kept writing while its image was copied", l.dev)
}

// inFlight is the in-flight count of a /sys/block/*/stat line.
func inFlight(stat string) string {
	if f := strings.Fields(stat); len(f) > 8 {
		return f[8]
	}
	return "?"
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
