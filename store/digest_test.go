package store

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// keptAndRecounted returns the digest the store keeps and the one counted
// afresh from every item and indexed member, at one moment.
func keptAndRecounted(db *DB) (kept, recount string) {
	db.txMu.Lock()
	defer db.txMu.Unlock()
	return db.digestLocked(), db.recountDigest()
}

func checkDigest(t *testing.T, name string, db *DB) string {
	t.Helper()
	kept, recount := keptAndRecounted(db)
	if kept != recount {
		t.Fatalf("%s: the digest kept is %s, counted afresh %s", name, kept, recount)
	}
	return kept
}

// sameType pairs the keys of randomKeys that hold one type, so that a key
// moved onto another keeps the type randomWrites expects there.
var sameType = map[string]string{"s": "s", "h": "hbig", "hbig": "h", "l": "lbig", "lbig": "l",
	"set": "setbig", "setbig": "set", "z": "zbig", "zbig": "z"}

// keyspaceWrites is randomWrites across three databases, with what moves
// whole keys and databases: expiries set, cleared and already past,
// RENAME, COPY, SWAPDB, FLUSHDB and now and then FLUSHALL.
func keyspaceWrites(tx *Tx, r *rand.Rand, step int) {
	tx.Select(r.IntN(3))
	randomWrites(tx, r, randomKeys, step)
	k := randomKeys[r.IntN(len(randomKeys))]
	other := sameType[k]
	if r.IntN(2) == 0 {
		other = k
	}
	switch r.IntN(40) {
	case 0, 1, 2:
		tx.SetExpireAt(k, tx.Now()+int64(r.IntN(3600_000)+60_000))
	case 3:
		tx.SetExpireAt(k, 0)
	case 4:
		tx.SetExpireAt(k, tx.Now()-1)
	case 5, 6:
		tx.Rename(k, sameType[k])
	case 7, 8:
		tx.Copy(k, r.IntN(3), other, r.IntN(2) == 0)
	case 9:
		tx.SwapDB(r.IntN(3), r.IntN(3))
	case 10:
		tx.FlushDB()
	case 11:
		if r.IntN(4) == 0 {
			tx.FlushAll()
		}
	}
}

// waitSameDigest waits until a and b have the same digest: the leader's
// sweeper may be half way through deleting an expired key.
func waitSameDigest(t *testing.T, what string, a, b *DB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		da, db := a.Digest(), b.Digest()
		if da == db {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: digests %s and %s differ:\n%s\n---\n%s", what, da, db, dumpDBs(a), dumpDBs(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDigestKeptMatchesRecount runs random writes of every type (inline and
// indexed collections, expiries, whole keys and databases moved or flushed)
// on a leader whose frames a follower applies, with some writes taken back
// (the cluster did not take them), and a node restoring a snapshot: after
// every write, each store's digest as kept equals the digest counted
// afresh, the follower's and the restored node's equal the leader's, and
// reopening each from its data file gives the same digest.
func TestDigestKeptMatchesRecount(t *testing.T) {
	ldir, fdir, sdir := t.TempDir(), t.TempDir(), t.TempDir()
	leader := openSync(t, ldir, SyncEverySec)
	follower := openSync(t, fdir, SyncEverySec)
	late := openSync(t, sdir, SyncEverySec)
	defer func() { leader.Close(); follower.Close(); late.Close() }()
	p := &pipeReplicator{leader: leader, followers: []*DB{follower}}
	leader.SetReplicator(p)
	checkDigest(t, "empty store", leader)
	r := rand.New(rand.NewPCG(17, 23))
	takenBack := 0
	for round := 0; round < 6; round++ {
		for step := 0; step < 80; step++ {
			fail := r.IntN(12) == 0
			p.mu.Lock()
			p.fail = fail
			p.mu.Unlock()
			err := leader.Update(func(tx *Tx) error {
				keyspaceWrites(tx, r, step)
				return nil
			})
			if fail && err != nil {
				takenBack++
			}
			checkDigest(t, "leader", leader)
			checkDigest(t, "follower", follower)
		}
		if round == 2 {
			var snap bytes.Buffer
			if err := leader.WriteSnapshot(&snap); err != nil {
				t.Fatal(err)
			}
			if err := late.RestoreSnapshot(&snap); err != nil {
				t.Fatal(err)
			}
			checkDigest(t, "restored node", late)
			p.mu.Lock()
			p.followers = append(p.followers, late)
			p.mu.Unlock()
		}
		waitSameDigest(t, "follower", leader, follower)
		if round >= 2 {
			checkDigest(t, "restored node", late)
			waitSameDigest(t, "restored node", leader, late)
		}
	}
	if takenBack == 0 {
		t.Fatal("no write was taken back")
	}
	p.mu.Lock()
	p.followers = nil
	p.mu.Unlock()
	want := checkDigest(t, "leader", leader)
	for _, s := range []struct {
		name string
		db   **DB
		dir  string
	}{{"leader", &leader, ldir}, {"follower", &follower, fdir}, {"restored node", &late, sdir}} {
		if err := (*s.db).Close(); err != nil {
			t.Fatal(err)
		}
		*s.db = openSync(t, s.dir, SyncEverySec)
		if got := checkDigest(t, s.name+" reopened", *s.db); got != want {
			t.Fatalf("%s reopened: digest %s, the leader's was %s", s.name, got, want)
		}
	}
}

// TestDigestFollowsContents checks that the digest tells stores apart by
// an item changed alone, and that it is the same whichever order the
// items were written in.
func TestDigestFollowsContents(t *testing.T) {
	a, b := openTemp(t, t.TempDir()), openTemp(t, t.TempDir())
	defer func() { a.Close(); b.Close() }()
	write := func(db *DB, keys ...string) {
		for _, k := range keys {
			db.Update(func(tx *Tx) error {
				tx.SetString(k, "v"+k, 0, false)
				z, _ := tx.OpenZSet("z")
				for i := range 200 {
					z.Put(k+string(rune('a'+i%26))+string(rune('a'+i/26)), float64(i))
				}
				z.Flush()
				z.Release()
				return nil
			})
		}
	}
	write(a, "1", "2", "3")
	write(b, "3", "1", "2")
	if da, db := checkDigest(t, "a", a), checkDigest(t, "b", b); da != db {
		t.Fatalf("same items written in another order: %s and %s", da, db)
	}
	b.DivergeForTest(metaKey(0, "2"), "x")
	if da, db := checkDigest(t, "a", a), checkDigest(t, "b", b); da == db {
		t.Fatalf("an item changed alone left the digest at %s", da)
	}
}

// BenchmarkItemSum is what the digest adds to each item a write sets or
// deletes (a qless job's hash item is a few hundred bytes).
func BenchmarkItemSum(b *testing.B) {
	v := string(bytes.Repeat([]byte("x"), 400))
	b.SetBytes(int64(len(v)) + 20)
	b.ReportAllocs()
	for b.Loop() {
		itemSum("d\x00\x0cql:j:abcdef", v)
	}
}

// A rewritten data file lists a sorted set's members in order, and loading
// builds the set's index from them at once (journal_replay.go): that index
// must count in the kept digest as one built member by member does.
func TestDigestAfterReopenOfRewrittenFile(t *testing.T) {
	dir := t.TempDir()
	db := openTemp(t, dir)
	db.Update(func(tx *Tx) error {
		z, _ := tx.OpenZSet("z")
		for i := range 300 {
			z.Put(string(rune('a'+i%26))+string(rune('a'+i/26)), float64(i))
		}
		z.Flush()
		z.Release()
		return nil
	})
	if err := db.Save(); err != nil {
		t.Fatal(err)
	}
	want := checkDigest(t, "before reopen", db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openTemp(t, dir)
	defer db.Close()
	if got := checkDigest(t, "reopened", db); got != want {
		t.Fatalf("reopened: digest %s, was %s", got, want)
	}
}
