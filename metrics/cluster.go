package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/qlessd/qlessd/cluster"
)

var (
	descClusterLeader = prometheus.NewDesc("qlessd_cluster_leader",
		"1 when this node leads the cluster and serves writes, 0 otherwise.", nil, nil)
	descClusterTerm = prometheus.NewDesc("qlessd_cluster_term",
		"The Raft term this node is in: it rises at each election.", nil, nil)
	descClusterApplied = prometheus.NewDesc("qlessd_cluster_applied_index",
		"The last log entry this node applied to its store.", nil, nil)
	descClusterCommit = prometheus.NewDesc("qlessd_cluster_commit_index",
		"The last log entry this node knows to be committed.", nil, nil)
	descClusterMembers = prometheus.NewDesc("qlessd_cluster_members",
		"Members of the cluster's configuration, this node included.", nil, nil)
	descClusterOnline = prometheus.NewDesc("qlessd_cluster_followers_online",
		"Followers answering the leader's heartbeats (on the leader; 0 elsewhere).", nil, nil)
	descClusterContact = prometheus.NewDesc("qlessd_cluster_last_contact_seconds",
		"Seconds since this follower last heard from the leader (0 on the leader, -1 never).", nil, nil)
	descClusterMismatches = prometheus.NewDesc("qlessd_cluster_digest_mismatches_total",
		"Times this node's store differed from the leader's at the same log index (docs/cluster.md).", nil, nil)
	descClusterReinstalls = prometheus.NewDesc("qlessd_cluster_store_reinstalls_total",
		"Times this node re-installed the leader's snapshot after its store differed (docs/cluster.md).", nil, nil)
)

type clusterCollector struct{ read func() cluster.Stats }

// ClusterCollector returns the collector of a cluster node's state, read
// once per scrape.
func ClusterCollector(read func() cluster.Stats) prometheus.Collector { return clusterCollector{read} }

// Describe implements prometheus.Collector.
func (c clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descClusterLeader, descClusterTerm, descClusterApplied, descClusterCommit,
		descClusterMembers, descClusterOnline, descClusterContact, descClusterMismatches, descClusterReinstalls} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c clusterCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	leader := 0.0
	if st.Leader {
		leader = 1
	}
	for d, v := range map[*prometheus.Desc]float64{
		descClusterLeader: leader, descClusterTerm: float64(st.Term), descClusterApplied: float64(st.Applied),
		descClusterCommit: float64(st.Commit), descClusterMembers: float64(st.Members),
		descClusterOnline: float64(st.FollowersOnline), descClusterContact: st.LastContact,
	} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	ch <- prometheus.MustNewConstMetric(descClusterMismatches, prometheus.CounterValue, float64(st.DigestMismatches))
	ch <- prometheus.MustNewConstMetric(descClusterReinstalls, prometheus.CounterValue, float64(st.Reinstalls))
}
