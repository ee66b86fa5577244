package commands

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/store"
)

// clockBase is where sinceBase counts from: time.Since of a time with
// a monotonic reading reads one clock, where time.Now reads two (wall and
// monotonic), and each read costs some 50 ns on the virtual machines we
// measure on; a command's timing reads twice.
var clockBase = time.Now()

func sinceBase() time.Duration { return time.Since(clockBase) }

// CmdStats counts one command's calls, or one subcommand's (client|list),
// as INFO commandstats and latencystats report them.
type CmdStats struct {
	Name     string // as Redis names it: "get", "client|list"
	calls    atomic.Int64
	rejected atomic.Int64
	failed   atomic.Int64
	hist     atomic.Pointer[Histogram] // made on the first call
}

func (cs *CmdStats) record(d time.Duration, failed bool) {
	cs.calls.Add(1)
	if failed {
		cs.failed.Add(1)
	}
	h := cs.hist.Load()
	if h == nil {
		cs.hist.CompareAndSwap(nil, new(Histogram))
		h = cs.hist.Load()
	}
	h.Record(d)
}

func (cs *CmdStats) reset() {
	cs.calls.Store(0)
	cs.rejected.Store(0)
	cs.failed.Store(0)
	if h := cs.hist.Load(); h != nil {
		h.reset()
	}
}

// CommandStat is one command's counters since start or CONFIG RESETSTAT.
type CommandStat struct {
	Name                          string // "get", "client|list"
	Calls, Usec, Rejected, Failed int64
	Duration                      HistogramSnapshot
}

// Stats holds what INFO stats, commandstats, errorstats and latencystats
// report: per-command counters, error replies by code, key lookups.
type Stats struct {
	errTotal atomic.Int64
	errMu    sync.Mutex
	errCodes map[string]int64
	hits     atomic.Int64
	misses   atomic.Int64
	all      []*CmdStats // every command's and subcommand's, fixed once built
}

// maxErrorCodes bounds errorstats: past it, errors with new codes are
// still counted in total_error_replies only.
const maxErrorCodes = 128

func newStats() *Stats { return &Stats{errCodes: map[string]int64{}} }

// CountError counts an error reply by its code, the first word of msg.
func (s *Stats) CountError(msg string) {
	s.errTotal.Add(1)
	code := "ERR"
	if i := strings.IndexByte(msg[:min(len(msg), 32)], ' '); i > 0 {
		code = msg[:i]
	}
	s.errMu.Lock()
	if _, ok := s.errCodes[code]; ok || len(s.errCodes) < maxErrorCodes {
		s.errCodes[code]++
	}
	s.errMu.Unlock()
}

// CountLookups adds key lookups of reading commands to keyspace_hits and
// keyspace_misses.
func (s *Stats) CountLookups(hits, misses int64) {
	if hits != 0 {
		s.hits.Add(hits)
	}
	if misses != 0 {
		s.misses.Add(misses)
	}
}

// Keyspace returns keyspace_hits and keyspace_misses.
func (s *Stats) Keyspace() (hits, misses int64) { return s.hits.Load(), s.misses.Load() }

// ErrorReplies returns total_error_replies.
func (s *Stats) ErrorReplies() int64 { return s.errTotal.Load() }

// ErrorCodes returns the error replies by code, sorted by code.
func (s *Stats) ErrorCodes() (codes []string, counts []int64) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	for c := range s.errCodes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		counts = append(counts, s.errCodes[c])
	}
	return codes, counts
}

// Reset zeroes every counter (CONFIG RESETSTAT).
func (s *Stats) Reset() {
	s.errTotal.Store(0)
	s.errMu.Lock()
	clear(s.errCodes)
	s.errMu.Unlock()
	s.hits.Store(0)
	s.misses.Store(0)
	for _, cs := range s.all {
		cs.reset()
	}
}

// Commands returns the counters of every command called (or rejected)
// since start or the last reset, sorted by name.
func (s *Stats) Commands() []CommandStat {
	var out []CommandStat
	for _, cs := range s.all {
		calls, rejected := cs.calls.Load(), cs.rejected.Load()
		if calls == 0 && rejected == 0 {
			continue
		}
		st := CommandStat{Name: cs.Name, Calls: calls, Rejected: rejected, Failed: cs.failed.Load()}
		if h := cs.hist.Load(); h != nil {
			st.Duration = h.Snapshot()
			st.Usec = h.sum.Load() / 1000 // the histogram sums the durations in ns
		} else {
			st.Duration.Buckets = make([]uint64, len(DurationBounds))
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// percentiles returns a command's latency percentiles in µs, nil when it
// ran no call.
func (s *Stats) percentiles(cs *CmdStats, ps ...float64) []float64 {
	h := cs.hist.Load()
	if h == nil {
		return nil
	}
	return h.Percentiles(ps...)
}

// countKeys counts cmd's key arguments that it looked up as hits or
// misses, as Redis counts them for reading commands.
func countKeys(tx *store.Tx, cmd *Cmd, args [][]byte) (hits, misses int64) {
	if cmd.FirstKey <= 0 {
		return 0, 0
	}
	last := cmd.LastKey
	if last < 0 {
		last += len(args)
	}
	step := max(cmd.Step, 1)
	for i := cmd.FirstKey; i <= last && i < len(args); i += step {
		looked, found := tx.LookedUp(args[i])
		switch {
		case !looked:
		case found:
			hits++
		default:
			misses++
		}
	}
	return hits, misses
}

// Stats returns the table's counters.
func (t *Table) Stats() *Stats { return t.stats }

// statsFor returns the counters a call of cmd with args goes to: its
// subcommand's for a container command (CLIENT, CONFIG, ...), nil for a
// subcommand Redis does not know, which Redis refuses uncounted.
func (t *Table) statsFor(cmd *Cmd, args [][]byte) *CmdStats {
	if cmd.subs == nil || len(args) < 2 {
		return cmd.stats // COMMAND alone is counted as the container
	}
	if len(args[1]) > 32 {
		return nil
	}
	var buf [32]byte
	low := buf[:0]
	for _, c := range args[1] {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	return cmd.subs[string(low)]
}

// Rejected counts a call refused before it ran (wrong arity, NOAUTH,
// MISCONF, BUSY, ...) with the error it got.
func (t *Table) Rejected(cmd *Cmd, args [][]byte, msg string) {
	t.stats.CountError(msg)
	if cmd == nil {
		return
	}
	if cs := t.statsFor(cmd, args); cs != nil {
		cs.rejected.Add(1)
	}
}

// containerSubs are Redis 7.0's subcommands of the container commands
// qlessd has, which INFO commandstats counts apart (cmdstat_client|list).
var containerSubs = map[string][]string{
	"acl": {"cat", "deluser", "dryrun", "genpass", "getuser", "help", "list", "load", "log", "save",
		"setuser", "users", "whoami"},
	"client": {"caching", "getname", "getredir", "help", "id", "info", "kill", "list", "no-evict",
		"no-touch", "pause", "reply", "setinfo", "setname", "tracking", "trackinginfo", "unblock", "unpause"},
	"command": {"count", "docs", "getkeys", "getkeysandflags", "help", "info", "list"},
	"config":  {"get", "help", "resetstat", "rewrite", "set"},
	"latency": {"doctor", "graph", "help", "histogram", "history", "latest", "reset"},
	"memory":  {"doctor", "help", "malloc-stats", "purge", "stats", "usage"},
	"object":  {"encoding", "freq", "help", "idletime", "refcount"},
	"pubsub":  {"channels", "help", "numpat", "numsub", "shardchannels", "shardnumsub"},
	"script":  {"debug", "exists", "flush", "help", "kill", "load"},
	"slowlog": {"get", "help", "len", "reset"},
}

// addStats gives cmd its counters when it is added to the table, those of
// the command it replaces when there is one.
func (t *Table) addStats(cmd *Cmd) {
	if prev := t.cmds[cmd.Name]; prev != nil {
		cmd.stats, cmd.subs = prev.stats, prev.subs
		return
	}
	if subs, ok := containerSubs[cmd.Name]; ok {
		cmd.subs = map[string]*CmdStats{}
		for _, sub := range subs {
			cs := &CmdStats{Name: cmd.Name + "|" + sub}
			cmd.subs[sub] = cs
			t.stats.all = append(t.stats.all, cs)
		}
	}
	cmd.stats = &CmdStats{Name: cmd.Name}
	t.stats.all = append(t.stats.all, cmd.stats)
}

// LatencyHistogram is LATENCY HISTOGRAM's figures for the named commands
// in the order named (all called ones, by name, when none is; names of
// commands not called are passed over): calls, and cumulative counts at
// powers of two of 1024 ns (reported in µs, as Redis's), where a count
// changes.
func (s *Stats) LatencyHistogram(names []string) []LatencyBuckets {
	list := s.all
	if len(names) > 0 {
		list = nil
		for _, name := range names {
			for _, cs := range s.all {
				if strings.EqualFold(cs.Name, name) {
					list = append(list, cs)
				}
			}
		}
	}
	var out []LatencyBuckets
	for _, cs := range list {
		h := cs.hist.Load()
		calls := cs.calls.Load()
		if h == nil || calls == 0 {
			continue
		}
		lb := LatencyBuckets{Name: cs.Name, Calls: calls}
		counts, _ := h.snapshot()
		var cum, last int64
		bound := int64(1024)
		for i, n := range counts {
			for histUpper(i) > bound {
				if cum > last {
					lb.Buckets = append(lb.Buckets, [2]int64{bound / 1000, cum})
					last = cum
				}
				bound *= 2
			}
			cum += n
		}
		if cum > last {
			lb.Buckets = append(lb.Buckets, [2]int64{bound / 1000, cum})
		}
		out = append(out, lb)
	}
	if len(names) == 0 {
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	}
	return out
}

// LatencyBuckets is one command's LATENCY HISTOGRAM entry.
type LatencyBuckets struct {
	Name    string
	Calls   int64
	Buckets [][2]int64 // µs bound, calls at most that long
}
