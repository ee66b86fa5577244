package tests

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dialSmallWindow connects with a receive buffer of a few kilobytes, so
// that a reply the client does not read soon fills every buffer on the way
// and the server's write of it waits.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return err
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestQlessBPopUndeliveredHandedBack has a worker die after bpop served it
// a job and before the reply reached it: the job goes back to waiting at
// once, as release gives it back (no retry spent, a released event), and
// the next worker gets it. The worker pipelines GETs of more than the
// socket buffers hold after its bpop and reads nothing, so the reply is
// still in the server when the worker closes: either the server finds the
// connection closed before writing, or its write fails.
func TestQlessBPopUndeliveredHandedBack(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	rdb := bpopClient(q.Addr)
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Set(ctx, "big", strings.Repeat("x", 16<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	events := rdb.Subscribe(ctx, "ql:log")
	defer events.Close()
	if _, err := events.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	gone := dialSmallWindow(t, q.Addr)
	// 64 MB of replies: more than the socket buffers on the way hold.
	gone.Write([]byte("QLESS bpop now gone 1 0 undelivered\r\n" + strings.Repeat("GET big\r\n", 4)))
	blockedClients(t, rdb, 1)
	rdb.Do(ctx, "QLESS", "put", "now", "p", "undelivered", "u1", "K", "{}", "0")
	var job struct {
		State, Worker string
		Remaining     int
		History       []struct{ What string }
	}
	get := func() {
		job.History = nil
		json.Unmarshal([]byte(rdb.Do(ctx, "QLESS", "get", "now", "u1").Val().(string)), &job)
	}
	get()
	if job.State != "running" || job.Worker != "gone" {
		t.Fatalf("after the put the job is %+v, want running for gone", job)
	}
	gone.Close()
	for deadline := time.Now().Add(waitTimeout); job.State != "waiting"; {
		if time.Now().After(deadline) {
			t.Fatalf("the job was not handed back: %+v", job)
		}
		time.Sleep(5 * time.Millisecond)
		get()
	}
	if last := job.History[len(job.History)-1].What; job.Worker != "" || job.Remaining != 5 || last != "released" {
		t.Fatalf("handed back as %+v (last history entry %s), want a release", job, last)
	}
	for {
		msg, err := events.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(msg.Payload, `"event":"released"`) {
			if msg.Payload != `{"jid":"u1","event":"released","queue":"undelivered","worker":"gone"}` {
				t.Fatalf("released event %s", msg.Payload)
			}
			break
		}
	}
	if got := poppedJids(t, <-startBPop(rdb, "next", "1", "10", "undelivered")); len(got) != 1 || got[0] != "u1" {
		t.Fatalf("the next worker got %v, want u1", got)
	}
}
