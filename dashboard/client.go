package dashboard

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// client reaches the server the dashboard shows over RESP, as any qless
// client does: every read and action is a QLESS call, so the dashboard
// runs the code paths (and takes the turns on the event loop) that workers
// and producers take.
type client struct {
	rdb *redis.Client
}

// clientName is the name (CLIENT SETNAME) of every dashboard connection.
const clientName = "qlessd-dashboard"

// actor is the worker name the dashboard's requeues are made under; qless
// records it in the job's history.
const actor = "qlessd-dashboard"

func newClient(addr string, addrOf func() string, user string, password func() string, tlsConf *tls.Config) *client {
	opts := &redis.Options{
		Addr:      addr,
		Dialer:    dialerTo(addrOf, tlsConf),
		TLSConfig: tlsConf,
		Protocol:  2,
		PoolSize:  8,
		// No idle connection is kept open ahead of need: a dashboard
		// nobody looks at holds no connection.
		DialTimeout:  2 * time.Second,
		ReadTimeout:  10 * time.Second,
		WriteTimeout: 10 * time.Second,
		// The password is read on each new connection, so a CONFIG SET
		// requirepass applies without restarting the dashboard.
		CredentialsProvider: func() (string, string) {
			if password == nil {
				return "", ""
			}
			return user, password()
		},
		// Named, so CLIENT LIST, MONITOR and the slow log tell the
		// dashboard's calls from the applications'. A user that may not
		// name its connection still gets a working dashboard.
		OnConnect: func(ctx context.Context, cn *redis.Conn) error {
			cn.ClientSetName(ctx, clientName)
			return nil
		},
	}
	return &client{rdb: redis.NewClient(opts)}
}

// dialerTo dials the address addrOf gives at each new connection (nil:
// go-redis's own dialer, to Options.Addr). go-redis leaves TLS to a dialer
// of ours, so it makes the TLS client itself, naming the host it dials
// unless conf names one.
func dialerTo(addrOf func() string, conf *tls.Config) func(context.Context, string, string) (net.Conn, error) {
	if addrOf == nil {
		return nil
	}
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		addr := addrOf()
		d := net.Dialer{Timeout: 2 * time.Second}
		if conf == nil {
			return d.DialContext(ctx, network, addr)
		}
		c := conf.Clone()
		if c.ServerName == "" {
			c.ServerName, _, _ = net.SplitHostPort(addr)
		}
		td := tls.Dialer{NetDialer: &d, Config: c}
		return td.DialContext(ctx, network, addr)
	}
}

// qlessArgs builds QLESS fn now args...
func qlessArgs(fn string, args ...any) []any {
	return append([]any{"QLESS", fn, "now"}, args...)
}

// call runs QLESS fn now args... and returns its reply as text ("" for nil).
func (c *client) call(ctx context.Context, fn string, args ...any) (string, error) {
	v, err := c.rdb.Do(ctx, qlessArgs(fn, args...)...).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return replyText(v), nil
}

// callJSON runs a QLESS call whose reply is JSON and decodes it into out.
// A nil reply leaves out alone.
func (c *client) callJSON(ctx context.Context, out any, fn string, args ...any) error {
	s, err := c.call(ctx, fn, args...)
	if err != nil {
		return err
	}
	return decodeReply(s, out, fn)
}

// decodeReply decodes the JSON reply s of QLESS fn into out; an empty
// reply (nil) leaves out alone.
func decodeReply(s string, out any, fn string) error {
	if s == "" {
		return nil
	}
	if s == "{}" {
		// cjson writes an empty list as {}: a list stays empty, an
		// object gets no fields either way.
		return nil
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		return fmt.Errorf("QLESS %s replied what the dashboard cannot read: %v", fn, err)
	}
	return nil
}

func replyText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// jobs reads the jobs of jids in one QLESS multiget, in the order given;
// jids that are gone are left out.
func (c *client) jobs(ctx context.Context, jids []string) ([]Job, error) {
	if len(jids) == 0 {
		return []Job{}, nil
	}
	args := make([]any, len(jids))
	for i, j := range jids {
		args[i] = j
	}
	var list jobList
	if err := c.callJSON(ctx, &list, "multiget", args...); err != nil {
		return nil, err
	}
	return list, nil
}

// pipeline runs several QLESS calls in one round trip and returns each
// reply's text or error.
func (c *client) pipeline(ctx context.Context, calls [][]any) ([]string, []error) {
	pipe := c.rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(calls))
	for i, a := range calls {
		cmds[i] = pipe.Do(ctx, a...)
	}
	pipe.Exec(ctx)
	out, errs := make([]string, len(calls)), make([]error, len(calls))
	for i, cmd := range cmds {
		v, err := cmd.Result()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		out[i], errs[i] = replyText(v), err
	}
	return out, errs
}

func (c *client) close() error { return c.rdb.Close() }
