package server

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// latencySamples is how many samples LATENCY keeps per event, as Redis.
const latencySamples = 160

type latencySample struct{ at, ms int64 }

type latencyEvent struct {
	samples []latencySample // oldest first
	max     int64
}

// latencyMonitor is LATENCY's record of events that took at least
// latency-monitor-threshold ms: one sample a second per event, the worst.
type latencyMonitor struct {
	mu     sync.Mutex
	events map[string]*latencyEvent
}

func (m *latencyMonitor) add(event string, start time.Time, d time.Duration) {
	ms := int64(d / time.Millisecond)
	at := start.Add(d).Unix()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]*latencyEvent{}
	}
	e := m.events[event]
	if e == nil {
		e = &latencyEvent{}
		m.events[event] = e
	}
	e.max = max(e.max, ms)
	if n := len(e.samples); n > 0 && e.samples[n-1].at == at {
		e.samples[n-1].ms = max(e.samples[n-1].ms, ms)
		return
	}
	if len(e.samples) == latencySamples {
		copy(e.samples, e.samples[1:])
		e.samples = e.samples[:latencySamples-1]
	}
	e.samples = append(e.samples, latencySample{at, ms})
}

// storeLatency hears the data file's operations (store.DB.OnLatency):
// every fsync goes to the fsync histogram, and those past the threshold
// to LATENCY under Redis's event names.
func (s *Server) storeLatency(event string, d time.Duration) {
	start := time.Now().Add(-d)
	if event == "fsync" {
		s.obs.fsyncHist.Record(d)
		if s.db.SyncPolicy().String() != "always" {
			return
		}
		event = "aof-fsync-always"
	}
	s.obs.noteLatency(event, start, d)
}

// FsyncStats returns the durations of the data file's fsyncs since start,
// as a Prometheus histogram (commands.DurationBounds).
func (s *Server) FsyncStats() commands.HistogramSnapshot { return s.obs.fsyncHist.Snapshot() }

// latencyCmd implements LATENCY LATEST, HISTORY, RESET, GRAPH, DOCTOR and
// HELP.
func (s *Server) latencyCmd(c *commands.Ctx, args [][]byte) {
	m := &s.obs.latency
	sub := string(lowerASCII(args[1]))
	arity := map[string]int{"latest": 2, "history": 3, "graph": 3, "doctor": 2, "help": 2, "reset": -2, "histogram": -2}
	n, ok := arity[sub]
	switch {
	case !ok:
		c.Error(commands.Errorf(commands.ErrUnknownSub, string(args[1]), "LATENCY"))
		return
	case n > 0 && len(args) != n:
		c.Error(commands.WrongArgs("latency|" + sub))
		return
	}
	if sub == "histogram" {
		latencyHistogram(c, s.table.Stats(), args[2:])
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch sub {
	case "latest":
		names := m.names()
		c.W.WriteArray(len(names))
		for _, name := range names {
			e := m.events[name]
			last := e.samples[len(e.samples)-1]
			c.W.WriteArray(4)
			c.W.WriteBulkString(name)
			c.W.WriteInt(last.at)
			c.W.WriteInt(last.ms)
			c.W.WriteInt(e.max)
		}
	case "history":
		e := m.events[string(args[2])]
		if e == nil {
			c.W.WriteArray(0)
			return
		}
		c.W.WriteArray(len(e.samples))
		for _, smp := range e.samples {
			c.W.WriteArray(2)
			c.W.WriteInt(smp.at)
			c.W.WriteInt(smp.ms)
		}
	case "graph":
		e := m.events[string(args[2])]
		if e == nil {
			c.Error(commands.Errorf(commands.ErrNoLatencySample, string(args[2])))
			return
		}
		c.W.WriteVerbatim(latencyGraph(string(args[2]), e))
	case "reset":
		c.W.WriteInt(m.reset(args[2:]))
	case "doctor":
		c.W.WriteVerbatim(m.doctor(s.obs.latencyThreshold.Load()))
	default:
		writeHelp(c.W, latencyHelp)
	}
}

// latencyHistogram is LATENCY HISTOGRAM [command ...]: each command's
// calls and their durations at powers of two, as Redis 7.0 gives them.
func latencyHistogram(c *commands.Ctx, st *commands.Stats, args [][]byte) {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = string(a)
	}
	list := st.LatencyHistogram(names)
	c.W.WriteMap(len(list))
	for _, lb := range list {
		c.W.WriteBulkString(lb.Name)
		c.W.WriteMap(2)
		c.W.WriteBulkString("calls")
		c.W.WriteInt(lb.Calls)
		c.W.WriteBulkString("histogram_usec")
		c.W.WriteMap(len(lb.Buckets))
		for _, b := range lb.Buckets {
			c.W.WriteInt(b[0])
			c.W.WriteInt(b[1])
		}
	}
}

func (m *latencyMonitor) names() []string {
	names := make([]string, 0, len(m.events))
	for name := range m.events {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// reset forgets the named events (every one when none is named) and
// returns how many there were.
func (m *latencyMonitor) reset(names [][]byte) int64 {
	if len(names) == 0 {
		n := len(m.events)
		clear(m.events)
		return int64(n)
	}
	var n int64
	for _, name := range names {
		if _, ok := m.events[string(name)]; ok {
			delete(m.events, string(name))
			n++
		}
	}
	return n
}

// doctor is LATENCY DOCTOR's report: Redis's words when monitoring is off
// or nothing was seen, else each event's figures.
func (m *latencyMonitor) doctor(threshold int64) string {
	if threshold == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. " +
			"You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. " +
			"If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	if len(m.events) == 0 {
		return "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. " +
			"I honestly think you ought to sleep better.\n"
	}
	var b strings.Builder
	b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
	for i, name := range m.names() {
		e := m.events[name]
		var sum int64
		for _, smp := range e.samples {
			sum += smp.ms
		}
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation 0ms, period 0 sec). Worst all time event %dms.\n",
			i+1, name, len(e.samples), sum/int64(len(e.samples)), e.max)
	}
	b.WriteString("\nI have a few advices for you:\n\n")
	b.WriteString("- qlessd's events: command and fast-command are commands that ran past the threshold (see SLOWLOG GET); " +
		"aof-write, aof-fsync-always and aof-rewrite are the data file's writes, fsyncs (appendfsync always) and rewrites: check the disk.\n")
	return b.String()
}

// latencyGraph draws an event's samples, the highest on top: one column a
// sample, oldest on the left.
func latencyGraph(name string, e *latencyEvent) string {
	const rows = 8
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", name, sampleMax(e), sampleMin(e), e.max)
	b.WriteString(strings.Repeat("-", 80) + "\n")
	top := max(sampleMax(e), 1)
	for r := rows; r >= 1; r-- {
		for _, smp := range e.samples {
			if smp.ms*rows >= int64(r)*top {
				b.WriteByte('#')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func sampleMax(e *latencyEvent) int64 {
	var v int64
	for _, smp := range e.samples {
		v = max(v, smp.ms)
	}
	return v
}

func sampleMin(e *latencyEvent) int64 {
	v := e.samples[0].ms
	for _, smp := range e.samples {
		v = min(v, smp.ms)
	}
	return v
}

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}
