package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/qlessd/qlessd/commands"
)

// With --cluster-follower-reads a follower serves its own subscribers, but
// messages are published on the leader, where commands run. The follower
// therefore subscribes to every channel on the leader (PSUBSCRIBE *) over
// one connection of its own and publishes what arrives to its
// subscribers; when the leader changes, it subscribes on the new one.
// Shard channels (SPUBLISH) are not bridged.

// bridge runs until the node closes.
func (n *Node) bridge() {
	defer n.wg.Done()
	for {
		select {
		case <-n.done:
			return
		default:
		}
		id, addr := n.leader(time.Second)
		if n.ready.Load() || addr == "" || id == n.opts.NodeID {
			n.pause(200 * time.Millisecond)
			continue
		}
		if err := n.bridgeFrom(id, addr); err != nil {
			n.log.Debug("the subscription to the leader's messages ended", "leader", id, "err", err)
		}
		n.pause(50 * time.Millisecond)
	}
}

func (n *Node) pause(d time.Duration) {
	select {
	case <-n.done:
	case <-time.After(d):
	}
}

var errLeaderChanged = errors.New("the leader changed")

// bridgeFrom relays the messages of leader id (at addr) until the leader
// changes, this node leads, or the connection ends.
func (n *Node) bridgeFrom(id, addr string) error {
	c, err := n.dialClientPort(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if n.opts.Password != "" {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if err := roundTrip(c, r, "AUTH", n.opts.Password); err != nil {
			return err
		}
	}
	c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte("*2\r\n$10\r\nPSUBSCRIBE\r\n$1\r\n*\r\n")); err != nil {
		return err
	}
	for {
		// Wait for a message without consuming any of it, so a quiet
		// second costs nothing; then read it whole.
		c.SetReadDeadline(time.Now().Add(time.Second))
		_, err := r.Peek(1)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			_, lid := n.raft.LeaderWithID()
			if n.ready.Load() || string(lid) != id {
				return errLeaderChanged
			}
			continue
		}
		if err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		msg, err := readArray(r)
		if err != nil {
			return err
		}
		if len(msg) == 4 && msg[0] == "pmessage" {
			n.srv.Publish([]commands.Message{{Channel: msg[2], Payload: msg[3]}})
		}
	}
}

// readArray reads one RESP array of bulk strings and integers (a pub/sub
// push) as strings.
func readArray(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[0] != '*' {
		return nil, fmt.Errorf("unexpected reply %q", strings.TrimSpace(line))
	}
	count, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, count)
	for range count {
		item, err := readItem(r)
		if err != nil {
			return nil, fmt.Errorf("inside a message: %v", err)
		}
		out = append(out, item)
	}
	return out, nil
}

func readItem(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("empty line")
	}
	switch line[0] {
	case ':', '+':
		return line[1:], nil
	case '$':
		size, err := strconv.Atoi(line[1:])
		if err != nil || size < 0 {
			return "", fmt.Errorf("bulk length %q", line)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:size]), nil
	}
	return "", fmt.Errorf("unexpected item %q", line)
}
