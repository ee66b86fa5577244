package main

import (
	"sync/atomic"
	"time"
)

// pollInterval is how long a polling worker sleeps after an empty pop, as
// the qless bindings do by default (qless-py and the gem poll, qless-js
// likewise).
const pollInterval = 100 * time.Millisecond

// wait: conc workers wait for work on an empty queue while one producer
// puts a job every 5 ms; the line is the put-to-pop latency per job.
// qlessd's native way waits in QLESS bpop; the scripts cannot wait, so
// their workers pop and sleep pollInterval when there is nothing, as
// bindings do. The producer is an extra client.
func (s *session) wait(conc int) *result {
	if err := s.flush(); err != nil {
		return s.failed("wait", conc, err)
	}
	prefix, n, deadline := s.prefix(), int64(s.cfg.jobs), s.deadline()
	var nextPut, done atomic.Int64
	blocking := s.w.name == "native"
	elapsed, recs, err := runClients(s.srv.addr, conc+1, func(id int, c *conn, r *recorder) {
		if id == conc {
			for i := int64(1); i <= n && !stopping() && time.Now().Before(deadline); i++ {
				nextPut.Store(i)
				if _, err := r.untimed(c, s.w.call("put", nowArg(), "w", queue, jidOf(prefix, i), "bench.Job", jobData(), "0")); err != nil {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
			return
		}
		worker := workerName(id)
		for !stopping() && time.Now().Before(deadline) && done.Load() < n {
			call := s.w.call("pop", nowArg(), queue, worker, "1")
			if blocking {
				call = s.w.call("bpop", nowArg(), worker, "1", "0.5", queue)
			}
			rep, err := r.untimed(c, call)
			if err != nil {
				return
			}
			jobs, err := parsePop(rep)
			if err != nil {
				r.failed(err)
				return
			}
			at := time.Now()
			for _, j := range jobs {
				if t, ok := dataTime(j.data()); ok {
					r.lat = append(r.lat, at.Sub(t))
				}
				if _, err := r.untimed(c, s.w.call("complete", nowArg(), j.Jid, worker, queue, jobData())); err != nil {
					return
				}
				r.jobs++
				done.Add(1)
			}
			if len(jobs) == 0 && !blocking {
				time.Sleep(pollInterval)
			}
		}
	})
	if err != nil {
		return s.failed("wait", conc, err)
	}
	res := s.result("wait", conc, elapsed, recs)
	how := "workers poll pop every 100 ms when idle"
	if blocking {
		how = "workers wait in QLESS bpop"
	}
	res.Note = joinNote(res.Note, how+"; a put every 5 ms; latency is put to pop per job")
	return res
}
