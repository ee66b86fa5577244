package store

import (
	"os"
	"testing"
	"time"
)

// With everysec the once-a-second fsync runs beside the writers: a write
// completes while the fsync is still in progress.
func TestEverysecFsyncDoesNotBlockWrites(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), Sync: SyncEverySec})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	setFsync(db, func(f *os.File) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		return f.Sync()
	})
	if err := setKey(db, "a", "1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered: // the background sync has begun and is stuck in fsync
	case <-time.After(time.Minute):
		t.Fatal("no everysec fsync of the data file")
	}
	returned, err := setWithin(db, "b", "2", time.Minute)
	close(release)
	if !returned {
		t.Fatal("a write waited for the everysec fsync")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// CONFIG SET appendfsync always takes effect at once: the next write
// returns only after an fsync that covers it.
func TestSwitchToAlwaysSyncsEachWrite(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), Sync: SyncNo})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stopSweeper(db)
	if err := setKey(db, "a", "1"); err != nil {
		t.Fatal(err)
	}
	syncs, _ := db.syncer.syncStats()
	if syncs != 0 {
		t.Fatalf("appendfsync no: %d fsyncs", syncs)
	}
	db.SetSyncPolicy(SyncAlways)
	if err := setKey(db, "b", "2"); err != nil {
		t.Fatal(err)
	}
	if syncs, _ := db.syncer.syncStats(); syncs != 1 {
		t.Fatalf("after switching to always: %d fsyncs, want 1", syncs)
	}
}
