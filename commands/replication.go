package commands

import (
	"strconv"
	"strings"
)

// A cluster node (package cluster) tells ROLE and INFO replication what it
// is, in a Redis replica's terms: the leader is the master, the others its
// replicas, and offsets count the cluster's log entries.

// ReplicationState is a node's place in its cluster.
type ReplicationState struct {
	Master     bool
	ReplID     string // the cluster's id, 40 characters
	Offset     int64  // log entries applied here
	MasterHost string // a replica's master, "" while none is known
	MasterPort int
	LinkUp     bool
	LastIO     int64 // seconds since the master was last heard from
	Replicas   []Replica
	// Acked is how many replicas hold every acknowledged write (WAIT).
	Acked int64
	// Cluster: a cluster node, whose INFO replication also tells how many
	// times its store was found to differ from the leader's.
	Cluster          bool
	DigestMismatches int64
	Reinstalls       int64 // the leader's snapshots re-installed after a mismatch
}

// Replica is one replica, as its master sees it.
type Replica struct {
	Host   string
	Port   int
	Online bool
	Offset int64
}

// SetReplication makes ROLE and INFO replication answer from fn (nil: a
// master without replicas, as a server that runs alone is).
func (t *Table) SetReplication(fn func() ReplicationState) { t.replication = fn }

func (t *Table) replicationState() ReplicationState {
	if t.replication == nil {
		return ReplicationState{Master: true, ReplID: strings.Repeat("0", 40)}
	}
	return t.replication()
}

func cmdRole(c *Ctx, args [][]byte) {
	st := c.Table.replicationState()
	if !st.Master {
		c.W.WriteArray(5)
		c.W.WriteBulkString("slave")
		c.W.WriteBulkString(st.MasterHost)
		c.W.WriteInt(int64(st.MasterPort))
		c.W.WriteBulkString(linkState(st))
		c.W.WriteInt(st.Offset)
		return
	}
	c.W.WriteArray(3)
	c.W.WriteBulkString("master")
	c.W.WriteInt(st.Offset)
	c.W.WriteArray(len(st.Replicas))
	for _, r := range st.Replicas {
		c.W.WriteArray(3)
		c.W.WriteBulkString(r.Host)
		c.W.WriteBulkString(strconv.Itoa(r.Port))
		c.W.WriteBulkString(strconv.FormatInt(r.Offset, 10))
	}
}

func linkState(st ReplicationState) string {
	if st.LinkUp {
		return "connected"
	}
	return "connect"
}

func infoReplication(c *Ctx, b *infoBuilder) {
	st := c.Table.replicationState()
	if st.Master {
		b.field("role", "master")
		b.field("connected_slaves", len(st.Replicas))
		for i, r := range st.Replicas {
			state := "online"
			if !r.Online {
				state = "wait_bgsave"
			}
			b.field("slave"+strconv.Itoa(i), "ip="+r.Host+",port="+strconv.Itoa(r.Port)+",state="+state+",offset="+strconv.FormatInt(r.Offset, 10)+",lag=0")
		}
		b.field("master_failover_state", "no-failover")
		b.field("master_replid", st.ReplID)
		b.field("master_repl_offset", st.Offset)
		clusterFields(b, st)
		return
	}
	b.field("role", "slave")
	b.field("master_host", st.MasterHost)
	b.field("master_port", st.MasterPort)
	link := "down"
	if st.LinkUp {
		link = "up"
	}
	b.field("master_link_status", link)
	b.field("master_last_io_seconds_ago", st.LastIO)
	b.field("master_sync_in_progress", 0)
	b.field("slave_read_repl_offset", st.Offset)
	b.field("slave_repl_offset", st.Offset)
	b.field("slave_priority", 100)
	b.field("slave_read_only", 1)
	b.field("replica_announced", 1)
	b.field("connected_slaves", 0)
	b.field("master_failover_state", "no-failover")
	b.field("master_replid", st.ReplID)
	b.field("master_repl_offset", st.Offset)
	clusterFields(b, st)
}

// clusterFields are a cluster node's own lines of INFO replication.
func clusterFields(b *infoBuilder, st ReplicationState) {
	if st.Cluster {
		b.field("cluster_digest_mismatches", st.DigestMismatches)
		b.field("cluster_store_reinstalls", st.Reinstalls)
	}
}
