package commands

import (
	"fmt"
	"sort"
)

// infoCommandStats is INFO commandstats: Redis 7.0's line per command
// called since start or CONFIG RESETSTAT.
func infoCommandStats(c *Ctx, b *infoBuilder) {
	for _, st := range c.Table.Stats().Commands() {
		perCall := 0.0
		if st.Calls > 0 {
			perCall = float64(st.Usec) / float64(st.Calls)
		}
		fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
			st.Name, st.Calls, st.Usec, perCall, st.Rejected, st.Failed)
	}
}

// infoErrorStats is INFO errorstats: error replies by their first word.
func infoErrorStats(c *Ctx, b *infoBuilder) {
	codes, counts := c.Table.Stats().ErrorCodes()
	for i, code := range codes {
		fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", code, counts[i])
	}
}

// infoLatencyStats is INFO latencystats: each command's p50, p99 and
// p99.9 in µs.
func infoLatencyStats(c *Ctx, b *infoBuilder) {
	s := c.Table.Stats()
	all := append([]*CmdStats{}, s.all...)
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	for _, cs := range all {
		p := s.percentiles(cs, 50, 99, 99.9)
		if p == nil || cs.calls.Load() == 0 {
			continue
		}
		fmt.Fprintf(b, "latency_percentiles_usec_%s:p50=%.3f,p99=%.3f,p99.9=%.3f\r\n", cs.Name, p[0], p[1], p[2])
	}
}
