package cluster

import "time"

// With appendfsync everysec the log store does not sync each append
// (NoSync, openRaft): it is synced once a second here instead, as the
// data file is, so a machine crash loses about its last second, the
// promise of cluster.md, not whatever the kernel had not yet written back.
// The sync runs beside the appends (fdatasync of BoltDB's file), never on
// a write's path.
func (n *Node) syncLogEverySecond() {
	defer n.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-t.C:
			if err := n.entries.Sync(); err != nil {
				n.log.Warn("syncing the cluster's log failed", "err", err)
			}
			if err := n.logs.Sync(); err != nil {
				n.log.Warn("syncing the cluster's term and vote failed", "err", err)
			}
		}
	}
}
