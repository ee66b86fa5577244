package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

const queue = "bench"

// session runs the workloads of one way on one started server.
type session struct {
	cfg  *config
	w    *way
	srv  *server
	pass string
	seq  int
	// pings: this session runs its server kind's ping cells.
	pings bool
	// queued is how many jobs wait in queue after the last cell.
	queued int
	// lastPut is what the put cell managed, the size later pop cells aim for.
	lastPut int
	// lastPopRate is the pop1 cell's jobs/s, to size the pop10 cell's jobs.
	lastPopRate float64
	// cpuMark is the server's CPU time when the timed part of the cell
	// began (markCPU); result takes the difference.
	cpuMark   time.Duration
	cpuMarked bool
}

// markCPU notes the server's CPU time as the clients start.
func (s *session) markCPU() { s.cpuMark, s.cpuMarked = s.srv.cpuUsed() }

// prefix starts the jids of one batch of puts: jidOf completes them.
func (s *session) prefix() string {
	s.seq++
	return fmt.Sprintf("%08x", s.seq)
}

// jidOf is the i-th jid after prefix, 32 hex digits as qless clients make
// them (a UUID without its dashes), so sets of jids weigh what they do in
// use. It is made on the timed path, so without fmt.
func jidOf(prefix string, i int64) string {
	var num [16]byte
	h := strconv.AppendInt(num[:0], i, 16)
	var b strings.Builder
	b.Grow(32)
	b.WriteString(prefix)
	b.WriteString(zeros[:max(0, 32-len(prefix)-len(h))])
	b.Write(h)
	return b.String()
}

var zeros = strings.Repeat("0", 32)

// workerName is client id's worker, one per client as one per worker
// process (qless clients use the host name and process id).
func workerName(id int) string { return fmt.Sprintf("bench-host-%d", 40000+id) }

func (s *session) flush() error {
	c, err := dial(s.srv.addr)
	if err != nil {
		return err
	}
	defer c.close()
	_, err = c.do("FLUSHALL")
	s.queued = 0
	return err
}

// result builds a table line from the clients' records.
func (s *session) result(workload string, conc int, elapsed time.Duration, recs []*recorder) *result {
	r := &result{Pass: s.pass, Workload: workload, Concurrency: conc, Server: s.w.server, Way: s.w.name,
		Seconds: elapsed.Seconds()}
	var lat []time.Duration
	for _, rec := range recs {
		r.Jobs += rec.jobs
		r.Calls += len(rec.lat)
		r.Errors += rec.errs
		if rec.err != nil && r.Note == "" {
			r.Note = rec.err.Error()
		}
		lat = append(lat, rec.lat...)
	}
	if elapsed > 0 {
		r.JobsPerSec = float64(r.Jobs) / elapsed.Seconds()
		r.CallsPerSec = float64(r.Calls) / elapsed.Seconds()
	}
	r.setLatency(lat)
	if s.cpuMarked && r.Jobs > 0 {
		if cpu, ok := s.srv.cpuUsed(); ok {
			r.CPUUsPerJob = float64((cpu - s.cpuMark).Microseconds()) / float64(r.Jobs)
		}
	}
	s.cpuMarked = false
	return r
}

func (s *session) deadline() time.Time { return time.Now().Add(s.cfg.cellTime) }

// pingWay is the way column of ping lines: no script is involved.
const pingWay = "-"

// ping: each client sends PING and waits for PONG until the call count or
// the time cap is reached. It is the floor under every other line: what
// one unpipelined request and reply cost on this server, here.
func (s *session) ping(conc int) *result {
	n, deadline := int64(s.cfg.jobs), s.deadline()
	var next atomic.Int64
	s.markCPU()
	elapsed, recs, err := runClients(s.srv.addr, conc, func(id int, c *conn, r *recorder) {
		for !stopping() && time.Now().Before(deadline) && next.Add(1) <= n {
			if _, err := r.timed(c, []string{"PING"}); err != nil {
				return
			}
			r.jobs++
		}
	})
	var res *result
	if err != nil {
		res = s.failed("ping", conc, err)
	} else {
		res = s.result("ping", conc, elapsed, recs)
	}
	res.Way = pingWay
	return res
}

// put: each client puts one job per call until the job count or the time
// cap is reached. The jobs stay queued for the pop cells.
func (s *session) put(conc int) *result {
	if err := s.flush(); err != nil {
		return s.failed("put", conc, err)
	}
	prefix, n, deadline := s.prefix(), int64(s.cfg.jobs), s.deadline()
	var next atomic.Int64
	s.markCPU()
	elapsed, recs, err := runClients(s.srv.addr, conc, func(id int, c *conn, r *recorder) {
		for !stopping() && time.Now().Before(deadline) {
			i := next.Add(1)
			if i > n {
				return
			}
			_, err := r.timed(c, s.w.call("put", nowArg(), "w", queue, jidOf(prefix, i), "bench.Job", jobData(), "0"))
			if err != nil {
				return
			}
			r.jobs++
		}
	})
	if err != nil {
		return s.failed("put", conc, err)
	}
	res := s.result("put", conc, elapsed, recs)
	s.queued, s.lastPut = res.Jobs, res.Jobs
	return res
}

// topUp puts jobs (untimed) until want wait in the queue.
func (s *session) topUp(want int) error {
	if s.queued >= want {
		return nil
	}
	got, _, err := fill(s.srv.addr, s.w, queue, s.prefix(), want-s.queued, time.Now().Add(s.cfg.fillTime))
	s.queued += got
	return err
}

// pop: each client pops batch jobs per call and completes each one, until
// the job count, the time cap, or an empty queue.
func (s *session) pop(conc, batch int) *result {
	name := "pop" + strconv.Itoa(batch)
	want := max(s.lastPut, 1000)
	if batch > 1 && s.lastPopRate > 0 {
		// pop10+complete makes about half the calls per job pop1+complete
		// does: enough jobs for twice pop1's pace through the time cap,
		// rather than a long untimed refill.
		want = max(1000, int(2.5*s.lastPopRate*s.cfg.cellTime.Seconds()))
	} else if batch > 1 {
		want *= 2
	}
	want = min(s.cfg.jobs, want)
	if err := s.topUp(want); err != nil {
		return s.failed(name, conc, err)
	}
	n, deadline := int64(s.cfg.jobs), s.deadline()
	var claimed, popped atomic.Int64
	count := strconv.Itoa(batch)
	s.markCPU()
	elapsed, recs, err := runClients(s.srv.addr, conc, func(id int, c *conn, r *recorder) {
		worker := workerName(id)
		for !stopping() && time.Now().Before(deadline) {
			if claimed.Add(int64(batch))-int64(batch) >= n {
				return
			}
			rep, err := r.timed(c, s.w.call("pop", nowArg(), queue, worker, count))
			if err != nil {
				return
			}
			jobs, err := parsePop(rep)
			if err != nil {
				r.failed(err)
				return
			}
			if len(jobs) == 0 {
				return
			}
			popped.Add(int64(len(jobs)))
			for _, j := range jobs {
				if _, err := r.timed(c, s.w.call("complete", nowArg(), j.Jid, worker, queue, jobData())); err != nil {
					return
				}
				r.jobs++
			}
		}
	})
	if err != nil {
		return s.failed(name, conc, err)
	}
	s.queued -= int(popped.Load())
	res := s.result(name, conc, elapsed, recs)
	if batch == 1 {
		s.lastPopRate = res.JobsPerSec
	}
	return res
}

// heartbeat: a pool of running jobs, each client popping its share as its
// own worker and heartbeating them in turn, one job per call.
func (s *session) heartbeat(conc int) *result {
	if err := s.flush(); err != nil {
		return s.failed("heartbeat", conc, err)
	}
	pool := max(min(s.cfg.jobs, 1000), conc)
	if err := s.topUp(pool); err != nil {
		return s.failed("heartbeat", conc, err)
	}
	shares := make([][]string, conc)
	for id := range shares {
		jids, err := popAll(s.srv.addr, s.w, queue, pool/conc, workerName(id))
		s.queued -= len(jids)
		if err != nil {
			return s.failed("heartbeat", conc, err)
		}
		shares[id] = jids
	}
	n, deadline := int64(s.cfg.jobs), s.deadline()
	var next atomic.Int64
	s.markCPU()
	elapsed, recs, err := runClients(s.srv.addr, conc, func(id int, c *conn, r *recorder) {
		mine, worker := shares[id], workerName(id)
		for k := 0; !stopping() && time.Now().Before(deadline); k++ {
			if next.Add(1) > n {
				return
			}
			if _, err := r.timed(c, s.w.call("heartbeat", nowArg(), mine[k%len(mine)], worker, jobData())); err != nil {
				return
			}
			r.jobs++
		}
	})
	if err != nil {
		return s.failed("heartbeat", conc, err)
	}
	return s.result("heartbeat", conc, elapsed, recs)
}

// mixed: producers and workers at once on a fresh queue. Half the clients
// put, the other half pop one job and complete it; at concurrency 1 the one
// client alternates. Producers wait while backlog jobs are queued, so the
// queue stays short and the put-to-pop latency is that of a steady state
// rather than of an ever-growing queue.
func (s *session) mixed(conc int) (*result, *result) {
	if err := s.flush(); err != nil {
		return s.failed("mixed", conc, err), nil
	}
	producers := conc / 2
	backlog := s.cfg.backlog
	if backlog <= 0 {
		backlog = 2 * max(1, conc-producers)
	}
	slots := make(chan struct{}, backlog)
	prefix, n, deadline := s.prefix(), int64(s.cfg.jobs), s.deadline()
	var nextPut, done atomic.Int64
	putOne := func(c *conn, r *recorder) bool {
		i := nextPut.Add(1)
		if i > n {
			return false
		}
		_, err := r.timed(c, s.w.call("put", nowArg(), "w", queue, jidOf(prefix, i), "bench.Job", jobData(), "0"))
		return err == nil
	}
	// popOne reports whether the client should go on.
	popOne := func(worker string, c *conn, r *recorder) bool {
		rep, err := r.timed(c, s.w.call("pop", nowArg(), queue, worker, "1"))
		if err != nil {
			return false
		}
		jobs, err := parsePop(rep)
		if err != nil {
			r.failed(err)
			return false
		}
		at := time.Now()
		for _, j := range jobs {
			if t, ok := dataTime(j.data()); ok {
				r.e2e = append(r.e2e, at.Sub(t))
			}
			select {
			case <-slots:
			default:
			}
			if _, err := r.timed(c, s.w.call("complete", nowArg(), j.Jid, worker, queue, jobData())); err != nil {
				return false
			}
			r.jobs++
			done.Add(1)
		}
		if len(jobs) == 0 {
			// Nothing queued: idle briefly as a polling worker would.
			time.Sleep(200 * time.Microsecond)
		}
		return true
	}
	elapsed, recs, err := runClients(s.srv.addr, conc, func(id int, c *conn, r *recorder) {
		worker := workerName(id)
		for !stopping() && time.Now().Before(deadline) && done.Load() < n {
			switch {
			case conc == 1:
				if nextPut.Load() < n && !putOne(c, r) {
					return
				}
				if !popOne(worker, c, r) {
					return
				}
			case id < producers:
				select {
				case slots <- struct{}{}:
				case <-time.After(time.Until(deadline)):
					return
				}
				if !putOne(c, r) {
					return
				}
			default:
				if !popOne(worker, c, r) {
					return
				}
			}
		}
	})
	if err != nil {
		return s.failed("mixed", conc, err), nil
	}
	res := s.result("mixed", conc, elapsed, recs)
	if conc == 1 {
		res.Note = joinNote(res.Note, "one client alternating put, pop, complete")
	} else {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d producers, %d workers, at most %d jobs waiting", producers, conc-producers, backlog))
	}
	e2e := *res
	e2e.Workload = "mixed-e2e"
	e2e.Note = "put to pop latency per job"
	e2e.Calls, e2e.Errors = 0, 0
	var lat []time.Duration
	for _, rec := range recs {
		lat = append(lat, rec.e2e...)
	}
	e2e.setLatency(lat)
	return res, &e2e
}

// footprint measures memory and data-file bytes per queued job: put
// footprintJobs jobs (pipelined) into an empty queue on a fresh server.
func (s *session) footprint() *result {
	res := &result{Pass: s.pass, Workload: "footprint", Concurrency: 4, Server: s.w.server, Way: s.w.name}
	if err := s.flush(); err != nil {
		return s.failed("footprint", 4, err)
	}
	mem0, memOK := usedMemory(s.srv.addr)
	// The data file may still be catching up with earlier writes.
	time.Sleep(1100 * time.Millisecond)
	disk0 := s.srv.dataBytes()
	got, elapsed, err := fill(s.srv.addr, s.w, queue, s.prefix(), s.cfg.footprintJobs, time.Now().Add(s.cfg.fillTime))
	res.Jobs, res.Seconds = got, elapsed.Seconds()
	if elapsed > 0 {
		res.JobsPerSec = float64(got) / elapsed.Seconds()
	}
	if err != nil {
		res.Note = err.Error()
	}
	if got == 0 {
		return res
	}
	// everysec writes the file within a second or so.
	time.Sleep(1100 * time.Millisecond)
	disk := float64(s.srv.dataBytes()-disk0) / float64(got)
	res.FileBytesPerJob = &disk
	if mem1, ok := usedMemory(s.srv.addr); ok && memOK {
		m := float64(mem1-mem0) / float64(got)
		res.MemBytesPerJob = &m
	} else {
		res.Note = joinNote(res.Note, "no used_memory in INFO memory")
	}
	res.Note = joinNote(res.Note, "pipelined put, 4 clients x 50 deep")
	s.queued = got
	return res
}

func (s *session) failed(workload string, conc int, err error) *result {
	s.cpuMarked = false
	return &result{Pass: s.pass, Workload: workload, Concurrency: conc, Server: s.w.server, Way: s.w.name,
		Note: "failed: " + firstLine(err.Error())}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "; " + b
}
