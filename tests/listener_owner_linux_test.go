package tests

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// listensOn reports whether process pid holds a listening TCP socket on
// port. A test server's port comes from freePort, which another test may
// have been handed too: a connect that succeeds may reach the other test's
// server, and the one started here is then stopped before it listens (and
// before it handles SIGINT). /proc tells whose socket it is.
func listensOn(pid, port int) (yes, known bool) {
	inodes := map[string]bool{}
	// The process's own view: it may run in another network namespace.
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		known = true
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st ... inode (field 9); 0A is LISTEN.
			if len(f) < 10 || f[3] != "0A" {
				continue
			}
			if i := strings.LastIndexByte(f[1], ':'); i >= 0 {
				if p, err := strconv.ParseUint(f[1][i+1:], 16, 16); err == nil && int(p) == port {
					inodes[f[9]] = true
				}
			}
		}
	}
	if !known {
		return false, false
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, false
	}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(link[len("socket:["):], "]")] {
			return true, true
		}
	}
	return false, true
}

// The harness's start-up wait trusts listensOn: it must name the server's
// process, and not another one, as the owner of the server's port.
func TestListensOnNamesTheOwner(t *testing.T) {
	t.Parallel()
	q := StartQlessd(t, "")
	_, portText, _ := strings.Cut(q.Addr, ":")
	port, _ := strconv.Atoi(portText)
	if mine, known := listensOn(q.cmd.Process.Pid, port); !mine || !known {
		t.Errorf("qlessd's own port: listensOn = %v, %v", mine, known)
	}
	if mine, _ := listensOn(os.Getpid(), port); mine {
		t.Error("the test process is named as the owner of qlessd's port")
	}
}
