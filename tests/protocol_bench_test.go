package tests

import (
	"bytes"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHugeMultibulk sends a command of a million one-byte arguments
// in 4 KB writes while another client sends PINGs one after another, and
// reports how long the command took to send and run, and the PINGs' round
// trips meanwhile, of qlessd and of redis-server (go test ./tests -run '^$'
// -bench HugeMultibulk).
func BenchmarkHugeMultibulk(b *testing.B) {
	b.Run("qlessd", func(b *testing.B) { benchHugeMultibulk(b, StartQlessd(b, "")) })
	b.Run("redis", func(b *testing.B) { benchHugeMultibulk(b, StartRedis(b)) })
}

func benchHugeMultibulk(b *testing.B, q *Proc) {
	const n = 1_000_000
	body := append([]byte(fmt.Sprintf("*%d\r\n$6\r\nEXISTS\r\n", n+1)), bytes.Repeat([]byte("$1\r\nx\r\n"), n)...)
	var pings []time.Duration
	for range b.N {
		big, other := DialRaw(b, q.Addr), DialRaw(b, q.Addr)
		var stop atomic.Bool
		done := make(chan []time.Duration)
		go func() {
			var rtts []time.Duration
			for !stop.Load() {
				t0 := time.Now()
				if other.Do(b, "PING") != "+PONG\r\n" {
					b.Error("PING")
				}
				rtts = append(rtts, time.Since(t0))
			}
			done <- rtts
		}()
		for rest := body; len(rest) > 0; {
			m, err := big.c.Write(rest[:min(len(rest), 4096)])
			if err != nil {
				b.Fatal(err)
			}
			rest = rest[m:]
		}
		if got := big.Read(b); got != ":0\r\n" {
			b.Fatalf("EXISTS: %q", got)
		}
		stop.Store(true)
		pings = append(pings, <-done...)
	}
	sort.Slice(pings, func(i, j int) bool { return pings[i] < pings[j] })
	if len(pings) > 0 {
		b.ReportMetric(float64(pings[len(pings)/2].Microseconds()), "ping-p50-us")
		b.ReportMetric(float64(pings[len(pings)-1].Microseconds()), "ping-max-us")
		b.ReportMetric(float64(len(pings)), "pings")
	}
	b.SetBytes(int64(len(body)))
}
