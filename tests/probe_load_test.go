//go:build probes

package tests

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The probes (make probe) fault a running qlessd from outside, as a
// machine does, and count what its clients were told against what a
// restart finds: SIGKILL at random moments, power cuts on an ext4 image,
// a full disk. Each QLESSD_PROBE_* variable below sets a size; the
// defaults make a run of a few minutes, docs/storage.md says how to run
// long and what the last runs found.

// probeEnv is the integer in environment variable name, or def.
func probeEnv(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, s)
	}
	return n
}

// probeRNG is seeded by QLESSD_PROBE_SEED, else by the clock; the seed is
// logged so a run that found something can be replayed (the kill moments
// then differ only by the machine's timing).
func probeRNG(t *testing.T) *rand.Rand {
	seed := time.Now().UnixNano()
	if s := os.Getenv("QLESSD_PROBE_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("QLESSD_PROBE_SEED=%q: %v", s, err)
		}
	}
	t.Logf("QLESSD_PROBE_SEED=%d", seed)
	return rand.New(rand.NewSource(seed))
}

func newProbeModels(t *testing.T) []*probeModel {
	models := make([]*probeModel, probeEnv(t, "QLESSD_PROBE_CLIENTS", 6))
	for i := range models {
		models[i] = newProbeModel(i)
	}
	return models
}

// probeLoad is one round of writes: every model's client writes until
// its connection drops or stop closes. refusal is the error a refused
// write must get ("" when none may be refused); a client stops at any
// other error reply or wrong reply, as a problem.
type probeLoad struct {
	models   []*probeModel
	refusal  string
	mu       sync.Mutex
	problems []string
	wg       sync.WaitGroup
	stop     chan struct{}
	// What the clients were told so far, for a probe waiting on it.
	acks, refusals atomic.Int64
}

func startProbeLoad(addr string, models []*probeModel, refusal string, rng *rand.Rand) *probeLoad {
	l := &probeLoad{models: models, refusal: refusal, stop: make(chan struct{})}
	for _, m := range models {
		l.wg.Add(1)
		go l.client(addr, m, rand.New(rand.NewSource(rng.Int63())))
	}
	return l
}

func (l *probeLoad) problem(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
}

func (l *probeLoad) client(addr string, m *probeModel, rng *rand.Rand) {
	defer l.wg.Done()
	c, err := dialProbe(addr)
	if err != nil {
		return // killed before this client connected
	}
	defer c.Close()
	for {
		select {
		case <-l.stop:
			return
		default:
		}
		op := m.next(rng)
		m.pending = op
		r, err := c.do(op.args...)
		if err != nil {
			return // no reply: the command stays pending
		}
		if !l.settle(m, op, r) {
			return
		}
	}
}

// settle books the reply to op; false stops the client.
func (l *probeLoad) settle(m *probeModel, op *probeOp, r any) bool {
	if e, ok := r.(probeErr); ok {
		m.pending = nil
		if l.refusal != "" && string(e) == l.refusal {
			m.refused++
			l.refusals.Add(1)
			// Refusals come back at once: pace them.
			time.Sleep(5 * time.Millisecond)
			return true
		}
		l.problem("client %d: %q got %q", m.c, op.args, e)
		return false
	}
	if op.check != nil {
		if err := op.check(m, r); err != nil {
			l.problem("client %d: %.100q: %v", m.c, op.args, err)
		}
	}
	op.apply(m)
	m.acked++
	l.acks.Add(1)
	m.pending = nil
	return true
}

// problemList is the problems met so far; safe to call while clients run.
func (l *probeLoad) problemList() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.problems)
}

// wait ends the round's clients (the server is dead, or stop closes)
// and fails the test on a problem they met.
func (l *probeLoad) wait(t *testing.T) {
	t.Helper()
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
	if len(l.problems) > 0 {
		t.Fatalf("%d wrong replies, the first: %s", len(l.problems), strings.Join(l.problems[:min(10, len(l.problems))], "\n"))
	}
}

// verifyProbeModels checks every model against the server at addr; on a
// difference it keeps the data directory for a post-mortem and fails.
func verifyProbeModels(t *testing.T, addr string, models []*probeModel, dataDir string, round int) {
	t.Helper()
	c, err := dialProbe(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var lost []string
	for _, m := range models {
		diff, err := m.verify(c)
		if err != nil {
			t.Fatalf("verify client %d: %v", m.c, err)
		}
		for _, d := range diff {
			lost = append(lost, fmt.Sprintf("client %d: %s", m.c, d))
		}
	}
	if len(lost) > 0 {
		t.Fatalf("round %d: %d keys differ from every state the acknowledged writes allow "+
			"(data directory kept in %s):\n%s", round, len(lost), probeKeepEvidence(t, dataDir),
			strings.Join(lost[:min(40, len(lost))], "\n"))
	}
}

// probeKeepEvidence copies dir somewhere the test's cleanup leaves alone.
func probeKeepEvidence(t *testing.T, dir string) string {
	dst, err := os.MkdirTemp("", "qlessd-probe-evidence-")
	if err != nil {
		return "nowhere: " + err.Error()
	}
	if out, err := exec.Command("cp", "-a", dir+"/.", dst).CombinedOutput(); err != nil {
		t.Logf("keep %s: %v %s", dir, err, out)
	}
	return dst
}

// probeTotals sums what the models' clients were told, for the log line
// the results in docs/storage.md come from.
func probeTotals(models []*probeModel) string {
	var acked, refused, kept, gone int
	for _, m := range models {
		acked += m.acked
		refused += m.refused
		kept += m.pendingKept
		gone += m.pendingGone
	}
	return fmt.Sprintf("acknowledged %d, refused %d, unanswered at the fault %d (applied %d, not applied %d), lost 0",
		acked, refused, kept+gone, kept, gone)
}

// probeMoment is a fault's moment: 20 ms to 1.5 s into a round.
func probeMoment(rng *rand.Rand) time.Duration {
	return time.Duration(20+rng.Intn(1480)) * time.Millisecond
}

// probeRewrite asks for a rewrite of the data file at a random moment of
// half the rounds, so that faults land in rewrites too. It also keeps the
// file near its live size: the automatic rewrite waits for a quiet second,
// which rounds of writes cut off within 1.5 s seldom have (without it the
// kill loop's file reached 130 MB by round 60 and each start slowed).
func probeRewrite(addr string, rng *rand.Rand) {
	if rng.Intn(2) == 0 {
		return
	}
	d := probeMoment(rng)
	go func() {
		time.Sleep(d) // the moment, as a fault's
		if c, err := dialProbe(addr); err == nil {
			c.do("BGREWRITEAOF")
			c.Close()
		}
	}()
}
