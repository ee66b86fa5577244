package qless

import (
	"fmt"
	"time"

	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// nativeScript is a script qlessd serves with its own qless: a client's
// build (profile set) or our printed script.
type nativeScript struct {
	Profile
	sha   string
	stats *scripts.AliasStats
}

// infoQueues writes the start of INFO's qless section: what the qless
// keyspace holds now (ReadOverview), totals over queues, and the jobs
// counted since the start (JobCounts), the numbers /metrics has by queue.
func infoQueues(field func(string, any), tx *store.Tx) {
	if tx == nil {
		return
	}
	ov := ReadOverview(tx, float64(time.Now().UnixMicro())/1e6)
	var states [NumJobStates]int64
	for _, q := range ov.Queues {
		for s, n := range q.Jobs {
			states[s] += n
		}
	}
	var failed int64
	for _, g := range ov.Failed {
		failed += g.Jobs
	}
	field("queues", len(ov.Queues))
	for s, n := range states {
		field("jobs_"+JobState(s).String(), n)
	}
	field("failed_groups", len(ov.Failed))
	field("failed_jobs", failed)
	field("workers", ov.Workers)
	for e, n := range JobTotals() {
		field("total_jobs_"+JobEvent(e).String(), n)
	}
}

// infoNative writes INFO's qless section: whether client scripts are served
// natively, and for each script qlessd can serve so, whether it is loaded
// and how its calls were answered: by a fast path, by our library, handed
// back to the script itself (errors) or, should it happen, an error our
// library had to phrase after writing (late).
func infoNative(field func(string, any), e *scripts.Engine, opts Options, native []nativeScript) {
	field("native_client_scripts", yesNo(opts.NativeClientScripts))
	field("scripts_cached", e.Cached())
	for _, n := range native {
		build, shipped := n.Build, n.Shipped
		if build == "" {
			build, shipped = "qlessd", "qlessd-script"
		}
		loaded := 0
		if e.Exists(n.sha) {
			loaded = 1
		}
		st := n.stats
		field("script_"+n.sha, fmt.Sprintf("loaded=%d,build=%s,shipped=%s,fast=%d,library=%d,handed_back=%d,late=%d",
			loaded, build, shipped, st.Fast.Load(), st.Library.Load(), st.HandedBack.Load(), st.Late.Load()))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
