package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// observation is what watches the commands run: the MONITOR clients, the
// SLOWLOG and the LATENCY events, with the settings that say what they
// keep (slowlog-log-slower-than, slowlog-max-len,
// latency-monitor-threshold), and the data file's fsync histogram. The
// observer (observe.go) feeds it; MONITOR, SLOWLOG and LATENCY read it.
type observation struct {
	monitorMu    sync.RWMutex
	monitors     []*session
	monitorCount atomic.Int32 // len(monitors), read without the lock

	slowlog       slowLog
	slowlogSlower atomic.Int64 // µs; -1: none
	slowlogMax    atomic.Int64

	latency          latencyMonitor
	latencyThreshold atomic.Int64 // ms; 0: off

	fsyncHist commands.Histogram
}

// init sets Redis's defaults, which the configured values then replace.
func (o *observation) init() {
	o.slowlogSlower.Store(10000)
	o.slowlogMax.Store(128)
	o.slowlog.max = o.slowlogMax.Load
}

// monitored reports whether any client is in MONITOR.
func (o *observation) monitored() bool { return o.monitorCount.Load() != 0 }

// addMonitor makes sess a monitor.
func (o *observation) addMonitor(sess *session) {
	o.monitorMu.Lock()
	o.monitors = append(o.monitors, sess)
	o.monitorCount.Store(int32(len(o.monitors)))
	o.monitorMu.Unlock()
}

// removeMonitor stops feeding sess.
func (o *observation) removeMonitor(sess *session) {
	o.monitorMu.Lock()
	defer o.monitorMu.Unlock()
	for i, m := range o.monitors {
		if m == sess {
			o.monitors = append(o.monitors[:i:i], o.monitors[i+1:]...)
			break
		}
	}
	o.monitorCount.Store(int32(len(o.monitors)))
}

// feed hands one MONITOR line to every monitor.
func (o *observation) feed(line []byte) {
	o.monitorMu.RLock()
	for _, m := range o.monitors {
		m.out.message(line)
	}
	o.monitorMu.RUnlock()
}

// slow reports whether a command that took d goes to the SLOWLOG.
func (o *observation) slow(d time.Duration) bool {
	t := o.slowlogSlower.Load()
	return t >= 0 && d >= time.Duration(t)*time.Microsecond
}

// noteLatency records an event that took d, when it reaches
// latency-monitor-threshold.
func (o *observation) noteLatency(event string, start time.Time, d time.Duration) {
	if t := o.latencyThreshold.Load(); t > 0 && d >= time.Duration(t)*time.Millisecond {
		o.latency.add(event, start, d)
	}
}
