package server

import (
	"testing"
	"time"
)

// The monitors added are fed, in any number, until removed.
func TestObservationMonitors(t *testing.T) {
	var o observation
	o.init()
	a := &session{out: newOutbox(OutputLimit{}, nil)}
	b := &session{out: newOutbox(OutputLimit{}, nil)}
	if o.monitored() {
		t.Fatal("monitored with no monitor")
	}
	o.addMonitor(a)
	o.addMonitor(b)
	o.feed([]byte("one\r\n"))
	o.removeMonitor(a)
	o.removeMonitor(a) // a second removal changes nothing
	o.feed([]byte("two\r\n"))
	if got, want := a.out.pending(), len("one\r\n"); got != want {
		t.Errorf("removed monitor holds %d bytes, want %d", got, want)
	}
	if got, want := b.out.pending(), len("one\r\ntwo\r\n"); got != want {
		t.Errorf("monitor holds %d bytes, want %d", got, want)
	}
	if !o.monitored() {
		t.Error("not monitored with one monitor left")
	}
	o.removeMonitor(b)
	if o.monitored() {
		t.Error("monitored once every monitor left")
	}
}

// slowlog-log-slower-than: Redis's 10 ms by default, -1 logs nothing, 0
// everything.
func TestObservationSlow(t *testing.T) {
	var o observation
	o.init()
	if o.slow(9*time.Millisecond) || !o.slow(10*time.Millisecond) {
		t.Error("the default threshold is not 10 ms")
	}
	o.slowlogSlower.Store(-1)
	if o.slow(time.Hour) {
		t.Error("-1 logs a command")
	}
	o.slowlogSlower.Store(0)
	if !o.slow(0) {
		t.Error("0 does not log every command")
	}
	if o.slowlog.max() != 128 {
		t.Errorf("slowlog-max-len is %d by default, want 128", o.slowlog.max())
	}
}

// latency-monitor-threshold: 0 records nothing; otherwise events from
// the threshold on.
func TestObservationLatency(t *testing.T) {
	var o observation
	o.init()
	o.noteLatency("command", time.Now(), time.Second)
	if len(o.latency.events) != 0 {
		t.Fatalf("recorded with the monitor off: %v", o.latency.events)
	}
	o.latencyThreshold.Store(5)
	o.noteLatency("command", time.Now(), 4*time.Millisecond)
	o.noteLatency("fast-command", time.Now(), 5*time.Millisecond)
	if len(o.latency.events) != 1 || o.latency.events["fast-command"] == nil {
		t.Errorf("events %v, want fast-command alone", o.latency.events)
	}
}
