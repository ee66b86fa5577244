//go:build probes && linux

package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
// exactly what was acknowledged, deletes the big values and rewrites the
// file (BGREWRITEAOF, waited for; automatic rewrites are off, so that none
// runs while the filler is sized).
func TestProbeFullDisk(t *testing.T) {
	requireLoopFS(t)
	rounds := probeEnv(t, "QLESSD_PROBE_FULLDISK_ROUNDS", 6)
	rng := probeRNG(t)
	models := newProbeModels(t)
	for _, m := range models {
		m.small = true // the writer of 256 KB values has the big arguments here
	}
	fs := freshLoopFS(t, 64)
	data, filler := filepath.Join(fs.mnt, "data"), filepath.Join(fs.mnt, "filler")
	args := []string{"--appendfsync", "always", "--auto-aof-rewrite-percentage", "0"}
	big := &probeBig{}
	for round := 0; round < rounds; round++ {
		q := StartQlessd(t, data, args...)
		verifyProbeModels(t, q.Addr, models, data, round)
		big.verifyAndDelete(t, q.Addr, data)
		if round > 0 {
			probeRewriteNow(t, q.Addr)
		}
		fillDisk(t, fs.mnt, filler, 3<<20)
		fullDiskRound(t, q, models, big, filler, rng, round)
	}
	q := StartQlessd(t, data, args...)
	verifyProbeModels(t, q.Addr, models, data, rounds)
	big.verifyAndDelete(t, q.Addr, data)
	q.Stop()
	t.Logf("full disk: %d rounds, %d clients: %s; 256 KB values: %s", rounds, len(models), probeTotals(models), big.totals)
}

// fullDiskRound writes on q until the disk is full, then frees the room
// and kills q, before or after writes are acknowledged again.
func fullDiskRound(t *testing.T, q *Proc, models []*probeModel, big *probeBig, filler string, rng *rand.Rand, round int) {
	t.Helper()
	load := startProbeLoad(q.Addr, models, probeMisconf, rng)
	bigDone := big.start(q.Addr, round)
	explain := func() string {
		return fmt.Sprintf("round %d; client problems: %q; big values: %s; INFO persistence: %s; server log:\n%s",
			round, load.problemList(), big.status(), probeInfo(q.Addr), q.Output())
	}
	probeWaitFor(t, "refusals with MISCONF from the clients", func() bool { return load.refusals.Load() >= int64(2*len(models)) }, explain)
	// The big writer stops at its third refusal; room given back before
	// that, it would fill the disk again with live values.
	probeWaitFor(t, "third refusal of a big value", func() bool {
		select {
		case <-bigDone:
			return true
		default:
			return false
		}
	}, explain)
	expectWriteStatus(t, q.Addr, "err")
	if round%2 == 1 {
		q.Kill()
	}
	if err := os.Truncate(filler, 0); err != nil {
		t.Fatal(err)
	}
	if round%2 == 0 {
		from := load.acks.Load()
		probeWaitFor(t, "writes acknowledged once there is room", func() bool { return load.acks.Load() >= from+int64(5*len(models)) }, explain)
		expectWriteStatus(t, q.Addr, "ok")
		q.Kill()
	}
	load.wait(t)
}

// probeRewriteNow rewrites the data file and waits for the rewrite to end
// (aof_base_size moves from the size it had at start-up): a restart takes
// the file's size as the base the automatic rewrite grows from, as Redis
// does, so with a restart every round the file would fill the disk with
// the big values deleted in earlier rounds.
func probeRewriteNow(t *testing.T, addr string) {
	t.Helper()
	field := func(name string) string {
		info := probeInfo(addr)
		if i := strings.Index(info, name+":"); i >= 0 {
			return strings.Fields(info[i+len(name)+1:])[0]
		}
		return "?"
	}
	base := field("aof_base_size")
	c, err := dialProbe(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.do("BGREWRITEAOF"); err != nil || r != "Background append only file rewriting started" {
		t.Fatalf("BGREWRITEAOF: %v %v", r, err)
	}
	probeWaitFor(t, "end of the rewrite", func() bool {
		return field("aof_rewrite_in_progress") == "0" && field("aof_base_size") != base
	}, func() string { return probeInfo(addr) })
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

// probeWaitFor polls cond until it holds, failing the test with what
// explain says after waitTimeout.
func probeWaitFor(t *testing.T, what string, cond func() bool, explain func() string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in %v: %s", what, waitTimeout, explain())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// probeInfo is INFO persistence, or why it could not be read.
func probeInfo(addr string) string {
	c, err := dialProbe(addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	r, err := c.do("INFO", "persistence")
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(r)
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

// probeBig writes 256 KB values until three are refused (the disk is
// full): what was acknowledged must be kept, what was refused must be gone.
type probeBig struct {
	acked, refused []string
	pending        string
	totals         string
	nAcked, nRef   int
	mu             sync.Mutex
	last           string
}

// status is what the writer of big values last did; safe to call while it runs.
func (b *probeBig) status() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
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
			b.mu.Lock()
			b.last = fmt.Sprintf("SET %s: %.100v", key, r)
			b.mu.Unlock()
			if r == probeErr(probeMisconf) {
				b.refused = append(b.refused, key)
				if len(b.refused) == 3 {
					return // else it fills the disk again once there is room
				}
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
