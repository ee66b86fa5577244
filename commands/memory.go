package commands

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/store"
)

func registerMemory(t *Table) {
	t.Add(&Cmd{Name: "memory", Arity: -2, Flags: NoTx | ReadsOutsideTx, Run: cmdMemory})
}

// startupHeap is the heap in use once the program has started, which
// MEMORY STATS reports as startup.allocated.
var startupHeap = func() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}()

// memorySubs are MEMORY's subcommands and their Redis arities.
var memorySubs = map[string]int{"usage": -3, "stats": 2, "doctor": 2, "malloc-stats": 2, "purge": 2, "help": 2}

// cmdMemory is MEMORY USAGE|STATS|DOCTOR|MALLOC-STATS|PURGE|HELP. PURGE
// collects garbage and returns freed pages to the system, so INFO's
// used_memory then counts live data only (Go's heap holds garbage until
// the collector runs).
func cmdMemory(c *Ctx, args [][]byte) {
	sub := strings.ToLower(string(args[1]))
	arity, ok := memorySubs[sub]
	switch {
	case !ok:
		c.Error(Errorf(ErrUnknownSub, string(args[1]), "MEMORY"))
		return
	case arity > 0 && len(args) != arity, arity < 0 && len(args) < -arity:
		c.Error(WrongArgs("memory|" + sub))
		return
	}
	switch sub {
	case "usage":
		memoryUsage(c, args)
	case "stats":
		memoryStats(c)
	case "doctor":
		c.W.WriteVerbatim(memoryDoctorReport)
	case "malloc-stats":
		c.W.WriteVerbatim("Stats not supported for the current allocator")
	case "purge":
		runtime.GC()
		debug.FreeOSMemory()
		c.OK()
	default:
		writeHelp(c, "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"DOCTOR",
			"    Return memory problems reports.",
			"MALLOC-STATS",
			"    Return internal statistics report from the memory allocator.",
			"PURGE",
			"    Attempt to purge dirty pages for reclamation by the allocator.",
			"STATS",
			"    Return information about the memory usage of the server.",
			"USAGE <key> [SAMPLES <count>]",
			"    Return memory in bytes used by <key> and its value. Nested values are",
			"    sampled up to <count> times (default: 5, 0 means sample all).")
	}
}

// memoryStats is MEMORY STATS with Redis 7.0's fields, from Go's memory
// statistics: total.allocated is the heap in use, the allocator's figures
// are the heap's spans, rss is what Go holds from the system.
func memoryStats(c *Ctx) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var counts map[int][2]int
	c.Env.Store().View(func(tx *store.Tx) error {
		counts = tx.KeyCount()
		return nil
	})
	total, startup := int64(m.HeapAlloc), int64(startupHeap)
	peak := max(int64(m.HeapSys-m.HeapReleased), total)
	var keys int64
	for _, n := range counts {
		keys += int64(n[0])
	}
	clients := int64(c.Env.ServerStats().ConnectedClients) * 1024
	overhead := min(startup+clients, total)
	dataset := total - overhead
	perKey := int64(0)
	if keys > 0 {
		perKey = (total - startup) / keys
	}
	active, resident := int64(m.HeapInuse), int64(m.HeapSys-m.HeapReleased)
	rss := int64(m.Sys - m.HeapReleased)
	var r pairsReply
	r.add("peak.allocated", peak)
	r.add("total.allocated", total)
	r.add("startup.allocated", startup)
	for _, name := range []string{"replication.backlog", "clients.slaves"} {
		r.add(name, int64(0))
	}
	r.add("clients.normal", clients)
	for _, name := range []string{"cluster.links", "aof.buffer", "lua.caches", "functions.caches"} {
		r.add(name, int64(0))
	}
	for db := range c.Env.Store().Databases() {
		if n, ok := counts[db]; ok {
			r.add(fmt.Sprintf("db.%d", db), []int64{int64(n[0]) * 32, int64(n[1]) * 32, 0})
		}
	}
	r.add("overhead.total", overhead)
	r.add("keys.count", keys)
	r.add("keys.bytes-per-key", perKey)
	r.add("dataset.bytes", dataset)
	r.add("dataset.percentage", ratio(dataset*100, total-startup))
	r.add("peak.percentage", ratio(total*100, peak))
	r.add("allocator.allocated", total)
	r.add("allocator.active", active)
	r.add("allocator.resident", resident)
	r.add("allocator-fragmentation.ratio", ratio(active, total))
	r.add("allocator-fragmentation.bytes", active-total)
	r.add("allocator-rss.ratio", ratio(resident, active))
	r.add("allocator-rss.bytes", resident-active)
	r.add("rss-overhead.ratio", ratio(rss, resident))
	r.add("rss-overhead.bytes", rss-resident)
	r.add("fragmentation", ratio(rss, total))
	r.add("fragmentation.bytes", rss-total)
	r.write(c.W)
}

// ratio is a/b as Redis keeps it, a C float, replied as a double.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(float32(float64(a) / float64(b)))
}

// pairsReply is a map of names and values, as MEMORY STATS replies.
type pairsReply struct {
	names  []string
	values []any // int64, float64, or []int64 for a database's overheads
}

func (r *pairsReply) add(name string, v any) {
	r.names = append(r.names, name)
	r.values = append(r.values, v)
}

var dbOverheads = []string{"overhead.hashtable.main", "overhead.hashtable.expires", "overhead.hashtable.slot-to-keys"}

func (r *pairsReply) write(w resp.Writer) {
	w.WriteMap(len(r.names))
	for i, name := range r.names {
		w.WriteBulkString(name)
		switch v := r.values[i].(type) {
		case int64:
			w.WriteInt(v)
		case float64:
			w.WriteDouble(v)
		case []int64:
			w.WriteMap(len(v))
			for j, n := range v {
				w.WriteBulkString(dbOverheads[j])
				w.WriteInt(n)
			}
		}
	}
}
