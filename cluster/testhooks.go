package cluster

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/raft"
)

// Faults the end-to-end tests make happen at will, from the environment
// (never set in use): what a loaded machine does now and then.
type testHooks struct {
	// stepDownDelay holds a node that raft deposed before it notices,
	// with its clients still served (QLESSD_TEST_STEPDOWN_DELAY_MS): a
	// read then meets the lease, not a node that already stepped down.
	stepDownDelay time.Duration
	// holdBarrier makes a new leader's barrier never answer
	// (QLESSD_TEST_HOLD_BARRIER=1), as one queued while raft shuts down.
	holdBarrier bool
	// digestEvery checks the stores this often (QLESSD_TEST_DIGEST_EVERY_MS)
	// and divergeOn makes a node that applies the entry of that index
	// change its store alone (QLESSD_TEST_DIVERGE_AT).
	digestEvery time.Duration
	divergeAt   uint64
	// divergeCommand enables RAFT TEST-DIVERGE <key> <value>, which sets
	// a string key in this node's store alone
	// (QLESSD_TEST_DIVERGE_COMMAND=1).
	divergeCommand bool
	// resendGate holds the leader's answer to RAFT LEADER-RESEND until
	// the file it names exists (QLESSD_TEST_RESEND_GATE): a follower
	// stays re-installing meanwhile.
	resendGate string
	// leadGate holds a node that has just taken the lead, its barrier
	// applied, while the file <leadGate>/<node id> exists
	// (QLESSD_TEST_LEAD_GATE): meanwhile it may lose the lead and win it
	// back unnoticed.
	leadGate string
}

func readTestHooks() testHooks {
	ms, _ := strconv.Atoi(os.Getenv("QLESSD_TEST_STEPDOWN_DELAY_MS"))
	every, _ := strconv.Atoi(os.Getenv("QLESSD_TEST_DIGEST_EVERY_MS"))
	at, _ := strconv.ParseUint(os.Getenv("QLESSD_TEST_DIVERGE_AT"), 10, 64)
	return testHooks{stepDownDelay: time.Duration(ms) * time.Millisecond, holdBarrier: os.Getenv("QLESSD_TEST_HOLD_BARRIER") == "1",
		digestEvery: time.Duration(every) * time.Millisecond, divergeAt: at, divergeCommand: os.Getenv("QLESSD_TEST_DIVERGE_COMMAND") == "1",
		resendGate: os.Getenv("QLESSD_TEST_RESEND_GATE"), leadGate: os.Getenv("QLESSD_TEST_LEAD_GATE")}
}

// heldFuture is a future that never ends.
type heldFuture struct{}

func (heldFuture) Error() error { select {} }

// barrier is raft's Barrier, or a held one under QLESSD_TEST_HOLD_BARRIER.
func (n *Node) barrier(timeout time.Duration) raft.Future {
	if n.hooks.holdBarrier {
		n.log.Warn("test hook: the barrier is held")
		return heldFuture{}
	}
	return n.raft.Barrier(timeout)
}

// holdResend waits, under QLESSD_TEST_RESEND_GATE, until the gate file
// exists.
func (n *Node) holdResend() error {
	if n.hooks.resendGate == "" {
		return nil
	}
	n.log.Warn("test hook: the snapshot to re-install is held until a file exists", "file", n.hooks.resendGate)
	for {
		if _, err := os.Stat(n.hooks.resendGate); err == nil {
			return nil
		}
		select {
		case <-n.done:
			return errStopping
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// holdLead waits, under QLESSD_TEST_LEAD_GATE, while this node's gate
// file exists.
func (n *Node) holdLead() {
	if n.hooks.leadGate == "" {
		return
	}
	gate := filepath.Join(n.hooks.leadGate, n.opts.NodeID)
	for logged := false; ; logged = true {
		if _, err := os.Stat(gate); err != nil {
			return
		}
		if !logged {
			n.log.Warn("test hook: taking the lead is held until a file is gone", "file", gate)
		}
		select {
		case <-n.done:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
