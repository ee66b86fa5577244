package qless

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// handBackJobs is bpop's commands.Ctx.Undelivered: when the reply with the
// jobs it popped for worker (in database db, at now by the client's clock)
// never reaches the client, each job goes back to its queue as QLESS
// release would have the worker give it back: waiting again at once, no
// retry spent, a released history entry and event. release, rather than
// qless's timeout, because the worker never saw the job: nothing of it
// failed. A job that moved on meanwhile (its lock expired and another
// worker has it) refuses the release and stays where it is. Nil before
// Start, when there is no server to run the release.
func handBackJobs(db int, worker []byte, now float64, jobs []json.RawMessage) func() {
	srv := bindings.server()
	if srv == nil {
		return nil
	}
	var jids [][]byte
	for _, j := range jobs {
		var job struct {
			Jid string `json:"jid"`
		}
		if json.Unmarshal(j, &job) == nil && job.Jid != "" {
			jids = append(jids, []byte(job.Jid))
		}
	}
	worker = bytes.Clone(worker)
	popped := time.Now()
	return func() {
		at := strconv.AppendFloat(nil, now+time.Since(popped).Seconds(), 'f', 6, 64)
		for _, jid := range jids {
			srv.RunInternal(db, []byte("qless"), []byte("release"), at, jid, worker)
		}
	}
}
