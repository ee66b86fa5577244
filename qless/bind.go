package qless

import (
	"strconv"
	"sync"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// QLESS worker.bind <now> <worker> <grace-seconds> binds a worker name to
// the calling connection. When the last connection bound to the name
// closes and none binds it again within the grace period, the worker's
// jobs are handed back as their locks expiring would (worker.timeout).
// Bindings are kept in ql:bound (worker -> grace) so that after a restart,
// with no connection bound yet, each bound worker gets its grace period
// from start-up.

// Server is what the functions that work in the background (bindings,
// TTL expiry) need of the running server.
type Server interface {
	OnDisconnect(fn func(sessionID int64))
	RunInternal(db int, args ...[]byte) ([]byte, error)
	Store() *store.DB
	Done() <-chan struct{} // closed as the server stops
}

// Start connects the qless functions that need the running server: worker
// bindings (from now on, and those the data file holds) and TTL expiry.
// Without it worker.bind is refused and TTLs pass only at pops and peeks.
func Start(srv Server) error {
	if err := startBindings(srv); err != nil {
		return err
	}
	go expireLoop(srv, srv.Done())
	return nil
}

type binding struct {
	sessions map[int64]bool
	grace    time.Duration
	timer    *time.Timer // running while no connection holds the name
}

// binder tracks which connections hold which worker names.
type binder struct {
	mu        sync.Mutex
	srv       Server
	byWorker  map[string]*binding
	bySession map[int64][]string
}

var bindings = &binder{byWorker: map[string]*binding{}, bySession: map[int64][]string{}}

// startBindings connects worker.bind to the running server: disconnects
// start grace periods, and the bindings the data file holds start theirs
// now.
func startBindings(srv Server) error {
	b := bindings
	b.mu.Lock()
	b.srv = srv
	b.mu.Unlock()
	srv.OnDisconnect(b.disconnected)
	var saved []string
	err := srv.Store().View(func(tx *store.Tx) error {
		var err error
		saved, err = tx.HGetAll(boundKey)
		return err
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := 0; i+1 < len(saved); i += 2 {
		grace, _ := strconv.ParseFloat(saved[i+1], 64)
		bd := &binding{sessions: map[int64]bool{}, grace: seconds(grace)}
		b.byWorker[saved[i]] = bd
		b.startGrace(saved[i], bd)
	}
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// runBind serves worker.bind: call is (worker.bind now worker grace).
func runBind(c *commands.Ctx, call [][]byte, _ *scripts.Engine) {
	if len(call) < 3 || len(call[2]) == 0 {
		c.Error(`ERR worker.bind(): Arg "worker" missing`)
		return
	}
	grace, err := strconv.ParseFloat(string(argAt(call, 3)), 64)
	if err != nil || grace < 0 || grace != grace || grace > 1e9 {
		c.Error(`ERR worker.bind(): Arg "grace" not a number of seconds, 0 or more: ` + luaShown(argAt(call, 3)))
		return
	}
	b := bindings
	srv := b.server()
	if srv == nil || c.Sess == nil || c.Sess.ID() == 0 || c.InMulti {
		c.Error("ERR worker.bind(): binds a client connection; not inside MULTI")
		return
	}
	if c.Tx.Selected() != 0 {
		// The hand-back runs as the server's own client, in database 0.
		c.Error("ERR worker.bind(): workers are bound in database 0 only")
		return
	}
	worker := string(call[2])
	if _, err := c.Tx.HSet(boundKey, worker, strconv.FormatFloat(grace, 'f', -1, 64)); err != nil {
		c.StoreErr(err)
		return
	}
	b.bind(worker, c.Sess.ID(), seconds(grace))
	c.OK()
}

func argAt(call [][]byte, i int) []byte {
	if i < len(call) {
		return call[i]
	}
	return nil
}

// server is the running server; nil until Start.
func (b *binder) server() Server {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.srv
}

func (b *binder) bind(worker string, session int64, grace time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bd := b.byWorker[worker]
	if bd == nil {
		bd = &binding{sessions: map[int64]bool{}}
		b.byWorker[worker] = bd
	}
	bd.grace = grace
	if bd.timer != nil {
		bd.timer.Stop()
		bd.timer = nil
	}
	if !bd.sessions[session] {
		bd.sessions[session] = true
		b.bySession[session] = append(b.bySession[session], worker)
	}
}

// disconnected starts the grace period of each name the closed connection
// was the last to hold.
func (b *binder) disconnected(session int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, worker := range b.bySession[session] {
		bd := b.byWorker[worker]
		if bd == nil {
			continue
		}
		delete(bd.sessions, session)
		if len(bd.sessions) == 0 {
			b.startGrace(worker, bd)
		}
	}
	delete(b.bySession, session)
}

func (b *binder) startGrace(worker string, bd *binding) {
	if bd.timer != nil {
		bd.timer.Stop()
	}
	bd.timer = time.AfterFunc(bd.grace, func() { b.expire(worker, bd) })
}

// expire hands back worker's jobs unless a connection bound the name again.
func (b *binder) expire(worker string, bd *binding) {
	b.mu.Lock()
	if b.byWorker[worker] != bd || len(bd.sessions) > 0 {
		b.mu.Unlock()
		return
	}
	delete(b.byWorker, worker)
	srv := b.srv
	b.mu.Unlock()
	// HDEL first: should the server stop in between, the jobs are still
	// held and their locks expire as qless's do.
	srv.RunInternal(0, []byte("hdel"), []byte(boundKey), []byte(worker))
	srv.RunInternal(0, []byte("qless"), []byte("worker.timeout"), clockNow(), []byte(worker))
}
