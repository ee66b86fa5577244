//go:build probes && linux

package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const probeMisconf = "MISCONF Errors writing to the AOF file: No space left on device"

// A full disk, QLESSD_PROBE_FULLDISK_ROUNDS times (default 6), on a 64 MB
// ext4 loop filesystem: a filler file leaves 3 MB, the probe's clients and
// one writing 256 KB values run until writes are refused with MISCONF
// (docs/limits.md), twice as many refusals as clients. Refused writes
// must be gone, acknowledged ones kept. Every other round the server is
// killed while the disk is full; otherwise the filler goes, writes must be
// acknowledged again, and then it is killed. The next round's start finds
// exactly what was acknowledged, and deletes the big values so that
// rewrites (from 4 MB) give the room back.
func TestProbeFullDisk(t *testing.T) {
	requireLoopFS(t)
	rounds := probeEnv(t, "QLESSD_PROBE_FULLDISK_ROUNDS", 6)
	rng := probeRNG(t)
	models := newProbeModels(t)
	fs := freshLoopFS(t)
	data, filler := filepath.Join(fs.mnt, "data"), filepath.Join(fs.mnt, "filler")
	args := []string{"--appendfsync", "always", "--auto-aof-rewrite-min-size", "4mb"}
	big := &probeBig{}
	for round := 0; round < rounds; round++ {
		q := StartQlessd(t, data, args...)
		verifyProbeModels(t, q.Addr, models, data, round)
		big.verifyAndDelete(t, q.Addr, data)
		fillDisk(t, fs.mnt, filler, 3<<20)
		load := startProbeLoad(q.Addr, models, probeMisconf, rng)
		bigDone := big.start(q.Addr, round)
		probeWaitFor(t, "every client refused with MISCONF", func() bool { return load.refusals.Load() >= int64(2*len(models)) })
		expectWriteStatus(t, q.Addr, "err")
		if round%2 == 1 {
			q.Kill()
		}
		if err := os.Truncate(filler, 0); err != nil {
			t.Fatal(err)
		}
		if round%2 == 0 {
			from := load.acks.Load()
			probeWaitFor(t, "writes acknowledged once there is room", func() bool { return load.acks.Load() >= from+int64(5*len(models)) })
			expectWriteStatus(t, q.Addr, "ok")
			q.Kill()
		}
		load.wait(t)
		<-bigDone
	}
	q := StartQlessd(t, data, args...)
	verifyProbeModels(t, q.Addr, models, data, rounds)
	big.verifyAndDelete(t, q.Addr, data)
	q.Stop()
	t.Logf("full disk: %d rounds, %d clients: %s; 256 KB values: %s", rounds, len(models), probeTotals(models), big.totals)
}

// fillDisk sizes filler so that leave bytes stay free on mnt's filesystem.
func fillDisk(t *testing.T, mnt, filler string, leave int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	size := int64(0)
	if fi, err := os.Stat(filler); err == nil {
		size = fi.Size()
	}
	size += int64(st.Bavail)*st.Bsize - leave
	f, err := os.OpenFile(filler, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if size > 0 {
		if err := syscall.Fallocate(int(f.Fd()), 0, 0, size); err != nil {
			t.Fatalf("fallocate %d bytes: %v", size, err)
		}
	}
}

// probeWaitFor polls cond until it holds, failing the test after waitTimeout.
func probeWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in %v", what, waitTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expectWriteStatus checks INFO persistence's aof_last_write_status.
func expectWriteStatus(t *testing.T, addr, want string) {
	t.Helper()
	c, err := dialProbe(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.do("INFO", "persistence")
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(r); !strings.Contains(s, "aof_last_write_status:"+want+"\r\n") {
		t.Fatalf("INFO persistence, want aof_last_write_status:%s:\n%s", want, s)
	}
}

// probeBig writes 256 KB values until the disk is full and on while it
// is: what was acknowledged must be kept, what was refused must be gone.
type probeBig struct {
	acked, refused []string
	pending        string
	totals         string
	nAcked, nRef   int
}

var probeBigValue = strings.Repeat("b", 256<<10)

func (b *probeBig) start(addr string, round int) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := dialProbe(addr)
		if err != nil {
			return
		}
		defer c.Close()
		for i := 0; ; i++ {
			key := fmt.Sprintf("pbig:%d:%d", round, i)
			b.pending = key
			r, err := c.do("SET", key, probeBigValue)
			if err != nil {
				return
			}
			b.pending = ""
			if r == probeErr(probeMisconf) {
				b.refused = append(b.refused, key)
				time.Sleep(20 * time.Millisecond) // refusals come back at once: pace them
			} else if r == "OK" {
				b.acked = append(b.acked, key)
			} else {
				b.totals = fmt.Sprintf("SET %s replied %#v", key, r)
				return
			}
		}
	}()
	return done
}

// verifyAndDelete checks the last round's big values, then deletes the
// acknowledged ones.
func (b *probeBig) verifyAndDelete(t *testing.T, addr, dataDir string) {
	t.Helper()
	if strings.Contains(b.totals, "replied") {
		t.Fatal(b.totals)
	}
	c, err := dialProbe(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var cmds [][]string
	for _, k := range b.acked {
		cmds = append(cmds, []string{"STRLEN", k})
	}
	for _, k := range b.refused {
		cmds = append(cmds, []string{"EXISTS", k})
	}
	replies, err := c.pipeline(cmds)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range replies {
		if i < len(b.acked) && r != int64(len(probeBigValue)) {
			t.Fatalf("acknowledged %s: STRLEN %v after restart (data kept in %s)", b.acked[i], r, probeKeepEvidence(t, dataDir))
		}
		if i >= len(b.acked) && r != int64(0) {
			t.Fatalf("refused %s exists after restart", b.refused[i-len(b.acked)])
		}
	}
	if del := append(b.acked, b.pending); len(b.acked) > 0 || b.pending != "" {
		if _, err := c.do(append([]string{"DEL"}, del...)...); err != nil {
			t.Fatal(err)
		}
	}
	b.nAcked += len(b.acked)
	b.nRef += len(b.refused)
	b.totals = fmt.Sprintf("acknowledged %d, refused %d, lost 0", b.nAcked, b.nRef)
	b.acked, b.refused, b.pending = nil, nil, ""
}
