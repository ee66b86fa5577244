package store

import (
	"bytes"
	"strconv"
	"testing"
)

// The apply benchmarks measure what a follower spends per committed frame
// (ApplyReplicated: decoding the frame, applying its records with their
// digest and index upkeep, writing it to the data file), on the frames a
// leader's qless put and pop+complete write (qlessmix_bench_test.go).

// frameRecorder keeps the frames a leader writes, as the cluster would
// take them, and writes each to the leader's own file.
type frameRecorder struct {
	leader *DB
	frames [][]byte
}

func (r *frameRecorder) Replicate(frame []byte) error {
	r.frames = append(r.frames, bytes.Clone(frame))
	return r.leader.AppendOwnFrame(frame)
}

// benchLeaderFrames returns the frames of n puts, then (pop) of n
// pop+completes.
func benchLeaderFrames(b *testing.B, n int, pop bool) (puts, pops [][]byte) {
	b.Helper()
	leader := benchMixOpen(b, true)
	rec := &frameRecorder{leader: leader}
	leader.SetReplicator(rec)
	for i := 0; i < n; i++ {
		leader.Update(func(tx *Tx) error {
			benchMixPut(b, tx, "job-"+strconv.Itoa(i), i)
			return nil
		})
	}
	puts, rec.frames = rec.frames, nil
	if pop {
		for i := 0; i < n; i++ {
			leader.Update(func(tx *Tx) error {
				benchMixPopComplete(b, tx, n+i)
				return nil
			})
		}
	}
	return puts, rec.frames
}

func benchApply(b *testing.B, db *DB, frames [][]byte) {
	for _, f := range frames {
		if err := db.ApplyReplicated(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyPut(b *testing.B) {
	puts, _ := benchLeaderFrames(b, b.N, false)
	follower := benchMixOpen(b, true)
	b.ReportAllocs()
	b.ResetTimer()
	benchApply(b, follower, puts)
}

func BenchmarkApplyPopComplete(b *testing.B) {
	puts, pops := benchLeaderFrames(b, b.N, true)
	follower := benchMixOpen(b, true)
	benchApply(b, follower, puts)
	b.ReportAllocs()
	b.ResetTimer()
	benchApply(b, follower, pops)
}
