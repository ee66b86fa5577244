//go:build probes && linux

package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A power cut, emulated on an ext4 image attached to a loop device: at a
// random moment qlessd is killed and the image copied as the device holds
// it, without what ext4 keeps in the page cache (the kernel here has no
// device-mapper, so no dm-flakey or dm-log-writes; see docs/storage.md).
// The copy is mounted (ext4 replays its journal) and the next round runs
// on it. With appendfsync always nothing acknowledged may be missing,
// QLESSD_PROBE_POWERCUT_ROUNDS times (default 30). A control with
// appendfsync no must lose acknowledged writes, or the emulation kept the
// page cache and proves nothing.
func TestProbePowerCut(t *testing.T) {
	requireLoopFS(t)
	rng := probeRNG(t)
	t.Run("always", func(t *testing.T) {
		rounds := probeEnv(t, "QLESSD_PROBE_POWERCUT_ROUNDS", 30)
		models := newProbeModels(t)
		// Room for the data carried over a long run and a rewrite's copy of it.
		fs := freshLoopFS(t, 256)
		args := []string{"--appendfsync", "always", "--auto-aof-rewrite-min-size", "1mb"}
		for round := 0; round < rounds; round++ {
			q := StartQlessd(t, filepath.Join(fs.mnt, "data"), args...)
			verifyProbeModels(t, q.Addr, models, q.Dir, round)
			fs = powerCutUnderLoad(t, fs, q, models, rng, round)
		}
		q := StartQlessd(t, filepath.Join(fs.mnt, "data"), args...)
		verifyProbeModels(t, q.Addr, models, q.Dir, rounds)
		q.Stop()
		t.Logf("power cut, appendfsync always: %d rounds, %d clients: %s", rounds, len(models), probeTotals(models))
	})
	t.Run("control no", func(t *testing.T) {
		var acked, found int
		for round := 0; round < 3; round++ {
			a, f := powerCutCounters(t, rng, round)
			acked += a
			found += f
		}
		t.Logf("power cut, appendfsync no (control): %d INCRs acknowledged, %d found after the cut", acked, found)
		if found >= acked {
			t.Fatal("nothing acknowledged was lost without fsync: the emulation kept the page cache and proves nothing")
		}
	})
}

// freshLoopFS is an empty ext4 filesystem of sizeMB, mounted.
func freshLoopFS(t *testing.T, sizeMB int) *loopFS {
	image := filepath.Join(t.TempDir(), "img0")
	newLoopImage(t, image, sizeMB)
	return mountLoop(t, image)
}

// powerCutUnderLoad runs a round of writes on q, cuts the power at a
// random moment and returns the filesystem as it comes back.
func powerCutUnderLoad(t *testing.T, fs *loopFS, q *Proc, models []*probeModel, rng *rand.Rand, round int) *loopFS {
	t.Helper()
	load := startProbeLoad(q.Addr, models, "", rng)
	probeRewrite(q.Addr, rng)
	time.Sleep(probeMoment(rng)) // the fault's moment, not a wait for a condition
	q.Kill()
	load.wait(t)
	next := filepath.Join(filepath.Dir(fs.image), "img"+strconv.Itoa(round+1))
	if err := fs.powerCut(next); err != nil {
		t.Fatal(err)
	}
	fs.unmount()
	return mountLoop(t, next)
}

// powerCutCounters is a control round with appendfsync no: clients INCR
// counters of their own; it returns how many INCRs were acknowledged and
// how many the counters hold after the cut.
func powerCutCounters(t *testing.T, rng *rand.Rand, round int) (acked, found int) {
	fs := freshLoopFS(t, 64)
	q := StartQlessd(t, filepath.Join(fs.mnt, "data"), "--appendfsync", "no")
	models := newProbeModels(t)
	fs = powerCutUnderLoad(t, fs, q, models, rng, round)
	q = StartQlessd(t, filepath.Join(fs.mnt, "data"), "--appendfsync", "no")
	defer q.Stop()
	c, err := dialProbe(q.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, m := range models {
		n, _ := strconv.Atoi(m.strs[m.key("n")])
		acked += n
		r, err := c.do("GET", m.key("n"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := strconv.Atoi(fmt.Sprint(r))
		found += got
	}
	return acked, found
}
