//go:build probes

package tests

import (
	"testing"
	"time"
)

// SIGKILL at a random moment under writes from several clients, with
// appendfsync always, QLESSD_PROBE_KILL_ROUNDS times (default 100): every
// restart must find each client's acknowledged writes, and nothing it did
// not send; the one command per client whose reply never came may or may
// not be there. The data directory carries over from round to round, so
// each start loads what every kill before it left (rewrites included).
func TestProbeKillLoop(t *testing.T) {
	rounds := probeEnv(t, "QLESSD_PROBE_KILL_ROUNDS", 100)
	rng := probeRNG(t)
	models := newProbeModels(t)
	dir := t.TempDir()
	// A small rewrite threshold, so that kills land in rewrites too.
	args := []string{"--appendfsync", "always", "--auto-aof-rewrite-min-size", "1mb"}
	for round := 0; round < rounds; round++ {
		q := StartQlessd(t, dir, args...)
		verifyProbeModels(t, q.Addr, models, dir, round)
		load := startProbeLoad(q.Addr, models, "", rng)
		probeRewrite(q.Addr, rng)
		time.Sleep(probeMoment(rng)) // the fault's moment, not a wait for a condition
		q.Kill()
		load.wait(t)
		if (round+1)%20 == 0 {
			t.Logf("round %d: %s", round+1, probeTotals(models))
		}
	}
	q := StartQlessd(t, dir, args...)
	verifyProbeModels(t, q.Addr, models, dir, rounds)
	q.Stop()
	t.Logf("kill loop: %d rounds, %d clients: %s", rounds, len(models), probeTotals(models))
}
