package main

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/qlessd/qlessd/cluster"
	"github.com/qlessd/qlessd/qless"
	"github.com/qlessd/qlessd/server"
	"github.com/qlessd/qlessd/tlsconf"
)

// startCluster joins the cluster the settings describe; nil without
// --cluster-node-id, when qlessd runs alone.
func startCluster(srv *server.Server, s settings, cfg server.Config, logger *slog.Logger) (*cluster.Node, error) {
	if s.str("cluster-node-id") == "" {
		return nil, nil
	}
	peers, err := cluster.ParsePeers(s.str("cluster-peers"))
	if err != nil {
		return nil, err
	}
	var peerTLS *tlsconf.Holder
	if s.on("tls-replication") {
		if cfg.TLSPort == 0 {
			return nil, fmt.Errorf("tls-replication needs tls-port: the nodes reach each other's client port over TLS")
		}
		peerTLS = cfg.TLS
	}
	client := s.str("cluster-advertise-client")
	if client == "" {
		port := cfg.Port
		if peerTLS != nil {
			port = cfg.TLSPort
		}
		client = net.JoinHostPort(cfg.Bind, strconv.Itoa(port))
	}
	node, err := cluster.Start(srv, cluster.Options{
		NodeID: s.str("cluster-node-id"), Bind: s.str("cluster-bind"), Peers: peers, Dir: cfg.Dir,
		ClientAddr: client, Password: cfg.RequirePass, FollowerReads: s.on("cluster-follower-reads"),
		Sync: cfg.AppendFsync, SnapshotThreshold: uint64(s.int("cluster-snapshot-threshold")),
		TrailingLogs:     uint64(s.int("cluster-trailing-logs")),
		HeartbeatTimeout: time.Duration(s.int("cluster-heartbeat-timeout")) * time.Millisecond,
		TLS:              peerTLS,
		Logger:           logger,
	})
	if err != nil {
		return nil, err
	}
	// Bound workers get their grace from the moment a node starts
	// leading, as from a start.
	node.OnLead(func() { qless.Rebind(srv) })
	logger.Info("cluster node started", "node_id", s.str("cluster-node-id"), "raft", s.str("cluster-bind"), "client", client)
	return node, nil
}
