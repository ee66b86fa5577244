package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The restart part: -restart-jobs jobs queued on one qlessd with QLESS put
// (100-byte data, pipelined), the server stopped gracefully and started
// again on the same data directory. It measures what a restart costs: the
// seconds from exec until PING answers (the data file loaded), the MB/s
// of data file that is, and the memory each queued job then takes
// (used_memory after MEMORY PURGE, and the process's VmRSS).

// restartResult is the restart part's figures.
type restartResult struct {
	Jobs        int     `json:"jobs"`
	FileBytes   int64   `json:"file_bytes"`
	ReadySecs   float64 `json:"ready_seconds"`
	ReadyCPU    float64 `json:"ready_cpu_seconds"`
	MBPerSec    float64 `json:"mb_per_second"`
	UsedMemory  int64   `json:"used_memory"`
	RSS         int64   `json:"rss"`
	MemPerJob   float64 `json:"used_memory_per_job"`
	RSSPerJob   float64 `json:"rss_per_job"`
	FillSeconds float64 `json:"fill_seconds"`
	Err         string  `json:"error,omitempty"`
}

// restartFill caps the untimed puts of the restart part.
const restartFill = 15 * time.Minute

func runRestart(cfg *config, note func(string, ...any)) *restartResult {
	r := &restartResult{Jobs: cfg.restartJobs}
	if err := restartOn(cfg, r); err != nil {
		r.Err = err.Error()
		note("restart: %v", err)
	}
	return r
}

func restartOn(cfg *config, r *restartResult) error {
	s, err := startServer(cfg, "qlessd", "everysec")
	if err != nil {
		return err
	}
	defer s.stop()
	w := &way{server: "qlessd", name: "native"}
	got, took, err := fill(s.addr, w, queue, "restart", cfg.restartJobs, time.Now().Add(restartFill))
	r.Jobs, r.FillSeconds = got, took.Seconds()
	if err != nil {
		return err
	}
	waitRewrite(s.addr)
	if err := s.halt(); err != nil {
		return err
	}
	r.FileBytes = s.dataBytes()
	start := time.Now()
	if err := s.start(cfg.qlessdBin, qlessdArgs(portOf(s.addr), s.dir, "everysec")); err != nil {
		return err
	}
	// A million jobs may take a while to load on a loaded machine.
	if err := s.ready(10*time.Minute, "PING"); err != nil {
		return err
	}
	r.ReadySecs = time.Since(start).Seconds()
	if r.ReadyCPU, err = procCPU(s.cmd.Process.Pid); err != nil {
		return err
	}
	r.MBPerSec = float64(r.FileBytes) / 1e6 / r.ReadySecs
	mem, ok := usedMemory(s.addr)
	if !ok {
		return fmt.Errorf("no used_memory in INFO memory")
	}
	rss, err := procStatus(s.cmd.Process.Pid, "VmRSS")
	if err != nil {
		return err
	}
	r.UsedMemory, r.RSS = mem, rss
	r.MemPerJob, r.RSSPerJob = float64(mem)/float64(got), float64(rss)/float64(got)
	return nil
}

// halt stops the server gracefully and keeps its data directory, so it can
// start again on it.
func (s *server) halt() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("qlessd did not stop within 2 minutes of SIGTERM")
	}
	if st, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.ExitStatus() != 0 {
		return fmt.Errorf("qlessd stopped with status %d: %s", st.ExitStatus(), s.output())
	}
	return nil
}

// procCPU is the CPU time a process has used, user and system, in
// seconds: on shared cores, what the wall time would be on idle ones.
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks, nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100

func portOf(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	return port
}

// printRestart prints the restart line.
func printRestart(w io.Writer, r *restartResult) {
	if r.Err != "" {
		fmt.Fprintf(w, "restart: %s\n", r.Err)
		return
	}
	fmt.Fprintf(w, "restart: %d jobs queued (QLESS put, 100-byte data, %.0f s); data file %s loaded and ready in %.2f s = %.0f MB/s (%.2f s of CPU = %.0f MB/cpu-s); memory per queued job: used_memory %.0f B, RSS %.0f B\n",
		r.Jobs, r.FillSeconds, mb(r.FileBytes), r.ReadySecs, r.MBPerSec, r.ReadyCPU, float64(r.FileBytes)/1e6/max(r.ReadyCPU, 0.01), r.MemPerJob, r.RSSPerJob)
}
