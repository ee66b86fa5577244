package tests

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A client pipelining thousands of short scripts (a bulk load through
// qless.lua) does not hold the others for its whole pipeline: Redis serves
// them between its reads of 16 KB, and so must we. Another client's PING
// is answered while most of the pipeline's replies are still to come.
func TestEventLoopLongPipelineLetsOthersIn(t *testing.T) {
	const n = 3000
	body := spinScript(300, "1")
	var pipeline strings.Builder
	for range n {
		fmt.Fprintf(&pipeline, "*3\r\n$4\r\nEVAL\r\n$%d\r\n%s\r\n$1\r\n0\r\n", len(body), body)
	}
	run := func(t *testing.T, addr string) {
		bulk, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer bulk.Close()
		bulk.SetDeadline(time.Now().Add(60 * time.Second))
		// Connected before the pipeline starts, so that only the PING's
		// round trip, not a dial too, races the pipeline on a busy machine.
		other := DialRaw(t, addr)
		go bulk.Write([]byte(pipeline.String()))
		var got atomic.Int64
		done := make(chan error, 1)
		go func() {
			rd := bufio.NewReader(bulk)
			for range n {
				var b strings.Builder
				if err := readReply(rd, &b); err != nil {
					done <- err
					return
				}
				if b.String() != ":1\r\n" {
					done <- fmt.Errorf("reply %d: %q", got.Load(), b.String())
					return
				}
				got.Add(1)
			}
			done <- nil
		}()
		for got.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		if pong := other.Do(t, "PING"); pong != "+PONG\r\n" {
			t.Fatalf("PING: %q", pong)
		}
		at := got.Load()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		t.Logf("PING answered with %d of %d replies in", at, n)
		if at > n/2 {
			t.Errorf("PING was answered once %d of the pipeline's %d replies were in", at, n)
		}
	}
	t.Run("qlessd", func(t *testing.T) { run(t, StartQlessd(t, "").Addr) })
	t.Run("redis", func(t *testing.T) { run(t, StartRedis(t).Addr) })
}
