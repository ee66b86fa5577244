package dashboard

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// qless's throttle keys (qless/lua/throttle.lua): a throttle's hash, the
// jids holding its lock and the jids waiting for it.
const (
	throttlePrefix   = "ql:th:"
	locksSuffix      = "-locks"
	pendingSuffix    = "-pending"
	queueThrottleTID = "ql:q:" // a queue's own throttle is ql:q:<queue>
	// throttleRows is how many holders and waiting jobs the throttles page
	// names per throttle; the counts cover them all.
	throttleRows = 10
	// scanBatch is how many keys one SCAN call visits.
	scanBatch = 1000
)

// Throttle is one throttle as the throttles page and /api/throttles show
// it: qless lets at most Maximum jobs hold its lock at once (0: no limit).
type Throttle struct {
	ID string `json:"id"`
	// Queue is set for a queue's own throttle (QLESS queue.throttle.set).
	Queue   string `json:"queue,omitempty"`
	Maximum int64  `json:"maximum"`
	// TTL is the seconds until the throttle's maximum expires: -1 never,
	// -2 when none is set (its jobs' locks outlived it).
	TTL     int64    `json:"ttl"`
	Locks   int64    `json:"locks"`
	Pending int64    `json:"pending"`
	Holders []string `json:"holders"`
	Waiting []string `json:"waiting"`
}

// Full is true when no more jobs may take the throttle's lock.
func (t Throttle) Full() bool { return t.Maximum > 0 && t.Locks >= t.Maximum }

func (d *Dashboard) throttleRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /throttles", d.pageThrottles)
	m.HandleFunc("GET /api/throttles", d.apiThrottles)
	m.HandleFunc("POST /api/throttles/{tid}/maximum", d.serveAction("throttle-max", d.setThrottleMax))
}

// throttleIDs lists every throttle that has a maximum set, locks held or
// jobs waiting, by id. qless keeps no list of them, so their keys are
// found with SCAN; see scanFrom for why that does not read the whole
// keyspace.
func (d *Dashboard) throttleIDs(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	for _, kind := range []string{"hash", "zset"} {
		cur := scanFrom("ql:t")
		for {
			keys, next, err := d.c.rdb.ScanType(ctx, cur, throttlePrefix+"*", scanBatch, kind).Result()
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				tid := strings.TrimPrefix(k, throttlePrefix)
				if kind == "zset" {
					// A throttle's sets; a zset of another name is not qless's.
					var ok bool
					if tid, ok = strings.CutSuffix(tid, locksSuffix); !ok {
						if tid, ok = strings.CutSuffix(tid, pendingSuffix); !ok {
							continue
						}
					}
				}
				if tid != "" {
					seen[tid] = true
				}
			}
			if next == 0 || scannedPast(next, "ql:t") {
				break
			}
			cur = next
		}
	}
	ids := make([]string, 0, len(seen))
	for tid := range seen {
		ids = append(ids, tid)
	}
	sort.Strings(ids)
	return ids, nil
}

// scanFrom is a SCAN cursor that starts at the keys beginning with
// prefix4 (4 bytes). qlessd's cursors carry the first 4 bytes of the key
// a scan resumes at (bits 63..32), how many of them are real (bits
// 31..29) and an id into its table of recent cursors (never 0); a cursor
// it did not hand out resumes at those bytes (commands/scancursor.go).
// qless's throttle keys all begin ql:t, after the ql:j: of every job, so a
// scan from 0 would visit every job's key to reach them.
func scanFrom(prefix4 string) uint64 {
	var p uint64
	for i := 0; i < 4; i++ {
		p = p<<8 | uint64(prefix4[i])
	}
	return p<<32 | 4<<29
}

// scannedPast reports whether the scan's next cursor resumes past every key
// beginning with prefix4: it names a key whose first bytes sort after.
func scannedPast(cur uint64, prefix4 string) bool {
	n := int(cur>>29) & 7
	b := make([]byte, 0, 4)
	for i := 0; i < min(n, 4); i++ {
		b = append(b, byte(cur>>(56-8*i)))
	}
	return string(b) > prefix4
}

// throttles reads the throttles ids names: maximum and expiry (QLESS
// throttle.get, throttle.ttl), how many jobs hold and wait, and the first
// of each, in one round trip. qless's throttle.locks and throttle.pending
// reply whole sets, so the counts and lists are ZCARD, ZRANGE (holders,
// oldest lock first) and ZREVRANGE (waiting, first in line first) of
// qless's keys.
func (d *Dashboard) throttles(ctx context.Context, ids []string) ([]Throttle, error) {
	pipe := d.c.rdb.Pipeline()
	type reads struct {
		get, ttl             *redis.Cmd
		locks, pending       *redis.IntCmd
		holders, waitingJIDs *redis.StringSliceCmd
	}
	rs := make([]reads, len(ids))
	for i, tid := range ids {
		base := throttlePrefix + tid
		rs[i] = reads{
			get:         pipe.Do(ctx, qlessArgs("throttle.get", tid)...),
			ttl:         pipe.Do(ctx, qlessArgs("throttle.ttl", tid)...),
			locks:       pipe.ZCard(ctx, base+locksSuffix),
			pending:     pipe.ZCard(ctx, base+pendingSuffix),
			holders:     pipe.ZRange(ctx, base+locksSuffix, 0, throttleRows-1),
			waitingJIDs: pipe.ZRevRange(ctx, base+pendingSuffix, 0, throttleRows-1),
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, err
	}
	out := make([]Throttle, len(ids))
	for i, tid := range ids {
		var t struct {
			Maximum int64 `json:"maximum"`
		}
		if err := decodeReply(replyText(rs[i].get.Val()), &t, "throttle.get"); err != nil {
			return nil, err
		}
		ttl, _ := rs[i].ttl.Int64()
		out[i] = Throttle{ID: tid, Maximum: t.Maximum, TTL: ttl, Locks: rs[i].locks.Val(),
			Pending: rs[i].pending.Val(), Holders: rs[i].holders.Val(), Waiting: rs[i].waitingJIDs.Val()}
		if q, ok := strings.CutPrefix(tid, queueThrottleTID); ok {
			out[i].Queue = q
		}
	}
	return out, nil
}

// throttlesPage reads one page of the throttles, by id, or the one ?id=
// names (without looking for the others).
func (d *Dashboard) throttlesPage(r *http.Request) ([]Throttle, pager, error) {
	p, err := parsePage(r)
	if err != nil {
		return nil, pager{}, err
	}
	var ids []string
	if id := r.URL.Query().Get("id"); id != "" {
		ids = []string{id}
	} else if ids, err = d.throttleIDs(r.Context()); err != nil {
		return nil, pager{}, err
	}
	from, to := min(p.Offset, len(ids)), min(p.Offset+p.Limit, len(ids))
	ts, err := d.throttles(r.Context(), ids[from:to])
	if len(ids) == 1 && err == nil && ts[0].TTL == -2 && ts[0].Locks == 0 && ts[0].Pending == 0 {
		ts, ids = nil, nil // no such throttle: qless replies maximum 0 for any id
	}
	return ts, pager{page: p, Total: int64(len(ids)), Shown: len(ts)}, err
}

func (d *Dashboard) pageThrottles(w http.ResponseWriter, r *http.Request) {
	ts, pg, err := d.throttlesPage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "throttles", "Throttles", map[string]any{"Throttles": ts, "Pager": pg,
		"ID": r.URL.Query().Get("id")})
}

func (d *Dashboard) apiThrottles(w http.ResponseWriter, r *http.Request) {
	ts, pg, err := d.throttlesPage(r)
	if err != nil {
		d.failErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": pg.Total, "offset": pg.Offset, "limit": pg.Limit, "throttles": ts})
}

// setThrottleMax sets a throttle's maximum (QLESS throttle.set, which
// keeps the expiry it has and lets as many waiting jobs back to work as
// the new maximum has room for). qless checks the number itself, and its
// refusal is what the page shows.
func (d *Dashboard) setThrottleMax(ctx context.Context, r *http.Request) (string, error) {
	tid := r.PathValue("tid")
	s := strings.TrimSpace(r.PostFormValue("maximum"))
	if s == "" {
		return "", badRequest{"give the throttle's new maximum (field maximum; 0 for no limit)"}
	}
	if _, err := d.c.call(ctx, "throttle.set", tid, s, 0); err != nil {
		return "", err
	}
	return "set the maximum of throttle " + tid + " to " + s, nil
}

// waitingFor fills in, for throttled jobs, the throttle each waits for:
// the one of its throttles (those it was put with, and its queue's own)
// whose pending set holds it.
func (d *Dashboard) waitingFor(ctx context.Context, jobs []Job) error {
	pipe := d.c.rdb.Pipeline()
	type probe struct {
		job int
		tid string
		cmd *redis.FloatCmd
	}
	var probes []probe
	for i, j := range jobs {
		if j.State != "throttled" {
			continue
		}
		for _, tid := range append([]string{queueThrottleTID + j.Queue}, j.Throttles...) {
			probes = append(probes, probe{i, tid, pipe.ZScore(ctx, throttlePrefix+tid+pendingSuffix, j.JID)})
		}
	}
	if len(probes) == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return err
	}
	for _, p := range probes {
		if p.cmd.Err() == nil && jobs[p.job].WaitingFor == "" {
			jobs[p.job].WaitingFor = p.tid
		}
	}
	return nil
}

// throttleLabel is how the pages name a throttle: a queue's own reads
// "queue <name>".
func throttleLabel(tid string) string {
	if q, ok := strings.CutPrefix(tid, queueThrottleTID); ok {
		return "queue " + q
	}
	return tid
}

// Expires says when the throttle's maximum expires.
func (t Throttle) Expires() string {
	switch {
	case t.TTL == -2:
		return "no maximum set"
	case t.TTL < 0:
		return "never"
	}
	return "in " + strconv.FormatInt(t.TTL, 10) + "s"
}

// MoreHolders and MoreWaiting are how many jobs the page does not name.
func (t Throttle) MoreHolders() int64 { return t.Locks - int64(len(t.Holders)) }
func (t Throttle) MoreWaiting() int64 { return t.Pending - int64(len(t.Waiting)) }
