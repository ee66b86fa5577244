package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// recorder holds one client's measurements; clients never share one, so
// recording costs an append.
type recorder struct {
	lat  []time.Duration // per call
	e2e  []time.Duration // put to pop, mixed workload only
	jobs int
	errs int
	err  error
}

// timed runs one call and records its latency.
func (r *recorder) timed(c *conn, args []string) (reply, error) {
	t0 := time.Now()
	rep, err := c.do(args...)
	r.lat = append(r.lat, time.Since(t0))
	if err != nil {
		r.failed(fmt.Errorf("%s: %s", args[callNameIndex(args)], firstLine(err.Error())))
	}
	return rep, err
}

// untimed runs one call whose latency is not the line's (the wait
// workload's lines are put-to-pop latencies), counting its error as timed
// does.
func (r *recorder) untimed(c *conn, args []string) (reply, error) {
	rep, err := c.do(args...)
	if err != nil {
		r.failed(fmt.Errorf("%s: %s", args[callNameIndex(args)], firstLine(err.Error())))
	}
	return rep, err
}

// failed counts an error, keeping the first for the report.
func (r *recorder) failed(err error) {
	r.errs++
	if r.err == nil {
		r.err = err
	}
}

// callNameIndex finds the qless function name in a built call.
func callNameIndex(args []string) int {
	switch {
	case args[0] == "QLESS":
		return 1
	case len(args) < 4:
		return 0 // not a qless call (PING)
	}
	return 3
}

// runClients runs body on n clients, each with its own connection, until
// every body returns; the elapsed time covers the bodies only, not dialing.
func runClients(addr string, n int, body func(id int, c *conn, r *recorder)) (time.Duration, []*recorder, error) {
	conns := make([]*conn, n)
	for i := range conns {
		c, err := dial(addr)
		if err != nil {
			for _, d := range conns[:i] {
				d.close()
			}
			return 0, nil, err
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	recs := make([]*recorder, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		recs[i] = &recorder{lat: make([]time.Duration, 0, 4096)}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					recs[i].err = fmt.Errorf("client panic: %v", p)
					recs[i].errs++
				}
			}()
			body(i, conns[i], recs[i])
		}(i)
	}
	wg.Wait()
	return time.Since(start), recs, nil
}

// jobData is 100 bytes of JSON carrying the time the job was made, so the
// mixed workload can measure put-to-pop latency from a popped job alone.
func jobData() string {
	var b strings.Builder
	b.Grow(100)
	b.WriteString(`{"t":`)
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], time.Now().UnixNano(), 10))
	b.WriteString(`,"pad":"`)
	b.WriteString(padding[:max(0, 100-b.Len()-2)])
	b.WriteString(`"}`)
	return b.String()
}

var padding = strings.Repeat("x", 100)

// dataTime reads back the time jobData stored.
func dataTime(data string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(data, `{"t":`)
	if !ok {
		return time.Time{}, false
	}
	end := strings.IndexByte(rest, ',')
	if end < 0 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(rest[:end], 10, 64)
	return time.Unix(0, ns), err == nil
}

// fill puts n jobs into queue with pipelined calls on a few connections,
// untimed set-up for the workloads that need queued jobs; it stops at the
// deadline and returns how many it put.
func fill(addr string, w *way, queue, prefix string, n int, deadline time.Time) (int, time.Duration, error) {
	const clients, depth = 4, 50
	var next, done atomic.Int64
	var firstErr atomic.Value
	elapsed, _, err := runClients(addr, clients, func(id int, c *conn, r *recorder) {
		for time.Now().Before(deadline) && !stopping() {
			from := next.Add(depth) - depth
			if from >= int64(n) {
				return
			}
			to := min(from+depth, int64(n))
			for i := from; i < to; i++ {
				c.send(w.call("put", nowArg(), "w", queue, jidOf(prefix, i), "bench.Job", jobData(), "0")...)
			}
			if err := c.flush(); err != nil {
				firstErr.CompareAndSwap(nil, err)
				return
			}
			for i := from; i < to; i++ {
				if _, err := c.read(); err != nil {
					firstErr.CompareAndSwap(nil, err)
					if _, ok := err.(replyError); !ok {
						return
					}
					continue
				}
				done.Add(1)
			}
		}
	})
	if err == nil {
		if e, ok := firstErr.Load().(error); ok {
			err = fmt.Errorf("put: %s", firstLine(e.Error()))
		}
	}
	return int(done.Load()), elapsed, err
}

// popAll pops up to n queued jobs as worker (untimed) and returns their
// jids, so they are running jobs for heartbeat.
func popAll(addr string, w *way, queue string, n int, worker string) ([]string, error) {
	c, err := dial(addr)
	if err != nil {
		return nil, err
	}
	defer c.close()
	var jids []string
	for len(jids) < n {
		r, err := c.do(w.call("pop", nowArg(), queue, worker, strconv.Itoa(min(100, n-len(jids))))...)
		if err != nil {
			return jids, fmt.Errorf("pop: %s", firstLine(err.Error()))
		}
		jobs, err := parsePop(r)
		if err != nil {
			return jids, err
		}
		if len(jobs) == 0 {
			break
		}
		for _, j := range jobs {
			jids = append(jids, j.Jid)
		}
	}
	if len(jids) == 0 {
		return nil, errors.New("no job could be popped")
	}
	return jids, nil
}
