package main

import (
	"fmt"
	"io"
	"slices"
)

// tlsCell is one round of one TLS line: the four servers' figures.
type tlsCell struct {
	pass, workload string
	conc, round    int
	jobs, cpu      map[string]float64 // jobs/s and server CPU µs per job, by server
}

// ratio is a/b, 0 when either is missing.
func ratio(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a / b
}

// qTLS, rTLS and qOverR are the round's tls/pl of each server and their
// ratio (1.00 or more: TLS costs qlessd no more than it costs Redis).
func (c *tlsCell) qTLS() float64   { return ratio(c.jobs["qlessd+tls"], c.jobs["qlessd"]) }
func (c *tlsCell) rTLS() float64   { return ratio(c.jobs["redis+tls"], c.jobs["redis"]) }
func (c *tlsCell) qOverR() float64 { return ratio(c.qTLS(), c.rTLS()) }

// addedCPU is the server CPU per job TLS adds to kind, in µs: the figure a
// shared machine's load moves least, and one that does not depend on how
// much other work the server does per job.
func (c *tlsCell) addedCPU(kind string) float64 {
	t, p := c.cpu[kind+"+tls"], c.cpu[kind]
	if t == 0 || p == 0 {
		return 0
	}
	return t - p
}

// tlsCells groups the TLS part's lines into cells, in the results' order.
func tlsCells(results []*result) []*tlsCell {
	type key struct {
		pass, workload string
		conc, round    int
	}
	byKey := map[key]*tlsCell{}
	var out []*tlsCell
	for _, r := range results {
		k := key{r.Pass, r.Workload, r.Concurrency, r.Round}
		c := byKey[k]
		if c == nil {
			c = &tlsCell{pass: r.Pass, workload: r.Workload, conc: r.Concurrency, round: r.Round,
				jobs: map[string]float64{}, cpu: map[string]float64{}}
			byKey[k] = c
			out = append(out, c)
		}
		c.jobs[r.Server], c.cpu[r.Server] = r.JobsPerSec, r.CPUUsPerJob
	}
	return out
}

const tlsHeader = "%-8s %-8s %4s %5s %8s %8s %6s %8s %8s %6s %6s %7s %7s\n"
const tlsRow = "%-8s %-8s %4d %5s %8.0f %8.0f %6s %8.0f %8.0f %6s %6s %7s %7s\n"

func fmtRatio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtCPU(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.1f", v)
}

func printTLSRow(out io.Writer, c *tlsCell, round string) {
	fmt.Fprintf(out, tlsRow, c.pass, c.workload, c.conc, round,
		c.jobs["qlessd"], c.jobs["qlessd+tls"], fmtRatio(c.qTLS()),
		c.jobs["redis"], c.jobs["redis+tls"], fmtRatio(c.rTLS()), fmtRatio(c.qOverR()),
		fmtCPU(c.addedCPU("qlessd")), fmtCPU(c.addedCPU("redis")))
}

func printTLSHeader(out io.Writer) {
	fmt.Fprintf(out, tlsHeader, "fsync", "workload", "conc", "round", "q plain", "q tls", "q t/p",
		"r plain", "r tls", "r t/p", "q/r", "q +cpu", "r +cpu")
}

// printTLSRound prints one round's lines as they come (on stderr).
func printTLSRound(out io.Writer, results []*result, round int) {
	sortResults(results)
	printTLSHeader(out)
	for _, c := range tlsCells(results) {
		printTLSRow(out, c, fmt.Sprint(round))
	}
}

// printTLSTable prints the TLS part: for each line, every round and then
// the median of each column over the rounds; q/r's median is that of the
// rounds' q/r, not the ratio of the medians, so that a slow stretch of a
// shared machine, which hits a round's plain and TLS cells alike, moves
// it least.
func printTLSTable(out io.Writer, results []*result) {
	fmt.Fprintln(out, "TLS: each server in clear and over TLS (fresh servers each round, TLS 1.3, ECDSA P-256, tls-auth-clients no);")
	way := "-"
	if len(results) > 0 {
		way = results[0].Way
	}
	fmt.Fprintf(out, "both run %s (EVALSHA); t/p: jobs/s over TLS over jobs/s in clear; q/r: qlessd's t/p over Redis's\n", way)
	fmt.Fprintln(out, "(1.00 or more: TLS costs qlessd no more than Redis); +cpu: server CPU µs per job TLS adds")
	printTLSHeader(out)
	cells := tlsCells(results)
	type line struct {
		pass, workload string
		conc           int
	}
	var order []line
	rounds := map[line][]*tlsCell{}
	for _, c := range cells {
		l := line{c.pass, c.workload, c.conc}
		if rounds[l] == nil {
			order = append(order, l)
		}
		rounds[l] = append(rounds[l], c)
	}
	for _, l := range order {
		rs := rounds[l]
		slices.SortFunc(rs, func(a, b *tlsCell) int { return a.round - b.round })
		for _, c := range rs {
			printTLSRow(out, c, fmt.Sprint(c.round))
		}
		if len(rs) > 1 {
			printTLSMedian(out, rs)
		}
	}
}

// printTLSMedian prints the medians over a line's rounds.
func printTLSMedian(out io.Writer, rs []*tlsCell) {
	med := func(f func(*tlsCell) float64) float64 {
		var v []float64
		for _, c := range rs {
			if x := f(c); x != 0 {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return 0
		}
		return median(v)
	}
	jobs := func(k string) float64 { return med(func(c *tlsCell) float64 { return c.jobs[k] }) }
	c := rs[0]
	fmt.Fprintf(out, tlsRow, c.pass, c.workload, c.conc, "med",
		jobs("qlessd"), jobs("qlessd+tls"), fmtRatio(med((*tlsCell).qTLS)),
		jobs("redis"), jobs("redis+tls"), fmtRatio(med((*tlsCell).rTLS)), fmtRatio(med((*tlsCell).qOverR)),
		fmtCPU(med(func(c *tlsCell) float64 { return c.addedCPU("qlessd") })),
		fmtCPU(med(func(c *tlsCell) float64 { return c.addedCPU("redis") })))
}
