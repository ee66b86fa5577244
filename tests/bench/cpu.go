package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// 100 on Linux.
const clockTick = 10 * time.Millisecond

// cpuUsed is the CPU time (user and system) the server's processes (a
// cluster's nodes) have used so far; false where /proc cannot tell. On a
// shared machine a server's CPU per job moves far less with the load than
// its jobs/s, which depends on how much of the cores it was given.
func (s *server) cpuUsed() (time.Duration, bool) {
	if len(s.nodes) > 0 {
		var sum time.Duration
		for _, n := range s.nodes {
			d, ok := n.cpuUsed()
			if !ok {
				return 0, false
			}
			sum += d
		}
		return sum, true
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name may hold spaces: fields count from its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}
