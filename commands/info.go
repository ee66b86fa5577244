package commands

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/qlessd/qlessd/store"
)

// RedisVersion is the Redis version qlessd reports to clients.
const RedisVersion = "7.0.15"

// infoSection writes one INFO section's fields.
type infoSection struct {
	name  string
	write func(c *Ctx, b *infoBuilder)
}

// extraSections are shown by INFO all or by name only: Redis 7.0 leaves
// them out of its default.
var extraSections = map[string]bool{"commandstats": true, "latencystats": true}

var infoSections = []infoSection{
	{"server", infoServer},
	{"clients", infoClients},
	{"memory", infoMemory},
	{"persistence", infoPersistence},
	{"stats", infoStats},
	{"replication", infoReplication},
	{"cpu", infoCPU},
	{"commandstats", infoCommandStats},
	{"errorstats", infoErrorStats},
	{"latencystats", infoLatencyStats},
	{"keyspace", infoKeyspace},
}

type infoBuilder struct{ strings.Builder }

func (b *infoBuilder) field(name string, value any) {
	fmt.Fprintf(b, "%s:%v\r\n", name, value)
}

// AddInfoSection adds an INFO section that INFO, INFO all and INFO <name>
// show after Redis's own. write gets one call of field per line.
func (t *Table) AddInfoSection(name string, write func(field func(name string, value any))) {
	t.info = append(t.info, infoSection{name: name, write: func(c *Ctx, b *infoBuilder) { write(b.field) }})
}

// AddInfoSectionTx is AddInfoSection for a section that reads the store:
// write gets the transaction INFO runs in, selected on the client's
// database.
func (t *Table) AddInfoSectionTx(name string, write func(tx *store.Tx, field func(name string, value any))) {
	t.info = append(t.info, infoSection{name: name, write: func(c *Ctx, b *infoBuilder) { write(c.Tx, b.field) }})
}

// cmdInfo is INFO [section ...] with Redis 7.0's section words: "default"
// and "all"/"everything" (the same here: qlessd's own sections are few and
// short, so the default shows them too).
func cmdInfo(c *Ctx, args [][]byte) {
	want := map[string]bool{}
	if len(args) == 1 {
		want["default"] = true
	}
	for _, a := range args[1:] {
		want[strings.ToLower(string(a))] = true
	}
	all := want["all"] || want["everything"]
	var out strings.Builder
	for _, s := range append(infoSections[:len(infoSections):len(infoSections)], c.Table.info...) {
		if !all && !want[s.name] && (extraSections[s.name] || !want["default"]) {
			continue
		}
		if out.Len() > 0 {
			out.WriteString("\r\n")
		}
		var b infoBuilder
		title := strings.ToUpper(s.name[:1]) + s.name[1:]
		switch s.name {
		case "cpu":
			title = "CPU"
		case "commandstats", "errorstats", "latencystats":
			title = strings.ToUpper(s.name[:1]) + s.name[1:len(s.name)-5] + "stats"
		}
		b.WriteString("# " + title + "\r\n")
		s.write(c, &b)
		out.WriteString(b.String())
	}
	c.W.WriteVerbatim(out.String())
}

func infoServer(c *Ctx, b *infoBuilder) {
	st := c.Env.ServerStats()
	up := time.Since(st.Started)
	b.field("redis_version", RedisVersion)
	b.field("redis_git_sha1", "00000000")
	b.field("redis_git_dirty", 0)
	b.field("redis_build_id", "0")
	b.field("redis_mode", "standalone")
	b.field("os", osName())
	b.field("arch_bits", 64)
	b.field("multiplexing_api", "epoll")
	b.field("gcc_version", "0.0.0")
	b.field("process_id", os.Getpid())
	b.field("process_supervised", "no")
	b.field("run_id", st.RunID)
	b.field("tcp_port", st.Port)
	b.field("server_time_usec", time.Now().UnixMicro())
	b.field("uptime_in_seconds", int64(up/time.Second))
	b.field("uptime_in_days", int64(up/(24*time.Hour)))
	b.field("hz", 10)
	b.field("configured_hz", 10)
	b.field("executable", st.Executable)
	b.field("config_file", "")
	b.field("io_threads_active", 0)
	b.field("qlessd_version", st.Version)
	b.field("go_version", runtime.Version())
}

// osName mimics Redis's "os" field (uname: system, release, machine).
func osName() string {
	release := "unknown"
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		release = strings.TrimSpace(string(b))
	}
	machine := runtime.GOARCH
	if machine == "amd64" {
		machine = "x86_64"
	}
	name := runtime.GOOS
	if name == "linux" {
		name = "Linux"
	}
	return name + " " + release + " " + machine
}

func infoClients(c *Ctx, b *infoBuilder) {
	st := c.Env.ServerStats()
	b.field("connected_clients", st.ConnectedClients)
	b.field("cluster_connections", 0)
	b.field("maxclients", st.MaxClients)
	b.field("client_recent_max_input_buffer", 0)
	b.field("client_recent_max_output_buffer", 0)
	b.field("blocked_clients", st.BlockedClients)
	b.field("tracking_clients", 0)
	b.field("clients_in_timeout_table", 0)
}

func infoMemory(c *Ctx, b *infoBuilder) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.field("used_memory", m.HeapInuse)
	b.field("used_memory_human", bytesToHuman(m.HeapInuse))
	b.field("used_memory_rss", m.Sys)
	b.field("used_memory_rss_human", bytesToHuman(m.Sys))
	b.field("used_memory_peak", m.HeapSys)
	b.field("used_memory_peak_human", bytesToHuman(m.HeapSys))
	b.field("maxmemory", 0)
	b.field("maxmemory_human", "0B")
	b.field("maxmemory_policy", "noeviction")
	b.field("mem_allocator", "go")
}

// bytesToHuman formats a size as Redis does in INFO ("1.50M").
func bytesToHuman(n uint64) string {
	f := float64(n)
	for _, u := range []struct {
		size   float64
		suffix string
	}{{1 << 50, "P"}, {1 << 40, "T"}, {1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}} {
		if f >= u.size {
			return fmt.Sprintf("%.2f%s", f/u.size, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", n)
}

func infoPersistence(c *Ctx, b *infoBuilder) {
	db := c.Env.Store()
	b.field("loading", 0)
	b.field("async_loading", 0)
	b.field("rdb_changes_since_last_save", db.Dirty())
	b.field("rdb_bgsave_in_progress", 0)
	b.field("rdb_last_save_time", db.LastSave().Unix())
	b.field("rdb_last_bgsave_status", "ok")
	rw := db.RewriteStatus()
	b.field("aof_enabled", 1)
	b.field("aof_rewrite_in_progress", boolInt(rw.InProgress))
	b.field("aof_rewrite_scheduled", boolInt(rw.Scheduled))
	b.field("aof_last_bgrewrite_status", "ok")
	b.field("aof_last_write_status", okOrErr(!rw.WriteFailed))
	b.field("aof_current_size", rw.CurrentSize)
	b.field("aof_base_size", rw.BaseSize)
	b.field("appendfsync", db.SyncPolicy().String())
}

func okOrErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

func infoStats(c *Ctx, b *infoBuilder) {
	st := c.Env.ServerStats()
	b.field("total_connections_received", st.TotalConnections)
	b.field("total_commands_processed", st.TotalCommands)
	b.field("instantaneous_ops_per_sec", 0)
	b.field("rejected_connections", st.RejectedConns)
	b.field("expired_keys", 0)
	b.field("evicted_keys", 0)
	hits, misses := c.Table.Stats().Keyspace()
	b.field("keyspace_hits", hits)
	b.field("keyspace_misses", misses)
	b.field("total_error_replies", c.Table.Stats().ErrorReplies())
}

func infoCPU(c *Ctx, b *infoBuilder) {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	secs := func(tv syscall.Timeval) string { return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec) }
	b.field("used_cpu_sys", secs(self.Stime))
	b.field("used_cpu_user", secs(self.Utime))
	b.field("used_cpu_sys_children", secs(children.Stime))
	b.field("used_cpu_user_children", secs(children.Utime))
}

func infoKeyspace(c *Ctx, b *infoBuilder) {
	if c.Tx == nil {
		return
	}
	counts := c.Tx.KeyCount()
	dbs := make([]int, 0, len(counts))
	for d := range counts {
		dbs = append(dbs, d)
	}
	sort.Ints(dbs)
	for _, d := range dbs {
		n := counts[d]
		fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=0\r\n", d, n[0], n[1])
	}
}
