package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// liveChannels are the qless channels whose messages the pages show:
// ql:log carries every job's put, completion, failure and lost lock; the
// others name tracked jobs.
var liveChannels = []string{"ql:log", "ql:completed", "ql:failed", "ql:popped",
	"ql:stalled", "ql:put", "ql:track", "ql:untrack", "ql:canceled"}

const (
	// eventsPerFlush caps the events sent to pages per flush; a busy
	// server's others are counted, not sent.
	eventsPerFlush = 20
	flushEvery     = 500 * time.Millisecond
	// countsBusy and countsIdle are how often the counts are re-read while
	// events arrive, and while none do.
	countsBusy = time.Second
	countsIdle = 5 * time.Second
	// linger keeps the subscription a while after the last page left, so
	// moving from page to page does not subscribe again each time.
	linger = 10 * time.Second
	// A server publishing more than busyEvents ql:log events in one flush
	// interval (200/s) is sampled: the dashboard leaves ql:log for
	// sampleGap, then listens for one interval again. Every event the
	// server publishes to a subscriber costs it a write, so this keeps the
	// cost of an open page small however busy the server is.
	busyEvents = 100
	sampleGap  = 5 * time.Second
)

// hub is the one subscription and the one counts reader that every open
// page shares: the server's cost of a live dashboard does not grow with
// the number of pages open.
type hub struct {
	d       *Dashboard
	mu      sync.Mutex
	clients map[chan []byte]bool
	cancel  context.CancelFunc
	leftAt  time.Time
	// countsDue says a page joined since the counts were last read: the
	// next flush reads them for it (and every page), so pages joining at
	// once cost one read.
	countsDue bool
	pending   []liveEvent
	dropped   int
	// received counts the events of the current flush interval; while
	// any arrive, the counts are re-read more often.
	received int
}

type liveEvent struct {
	Channel string `json:"channel"`
	Message string `json:"message"`
	Time    int64  `json:"time"`
}

// liveCounts is what the pages update without reloading.
type liveCounts struct {
	Queues     []QueueCounts `json:"queues"`
	Failed     []FailedGroup `json:"failed"`
	FailedAll  int64         `json:"failed_total"`
	Throughput Throughput    `json:"throughput"`
}

func newHub(d *Dashboard) *hub { return &hub{d: d, clients: map[chan []byte]bool{}} }

// join adds a page; the first one starts the subscription.
func (h *hub) join() chan []byte {
	ch := make(chan []byte, 16)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients[ch] = true
	h.countsDue = true
	if h.cancel == nil {
		ctx, cancel := context.WithCancel(h.d.ctx)
		h.cancel = cancel
		go h.run(ctx)
	}
	return ch
}

func (h *hub) leave(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.clients, ch)
	if len(h.clients) == 0 {
		h.leftAt = time.Now()
	}
}

// idle stops the subscription once no page has been open for linger.
func (h *hub) idle() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) > 0 || time.Since(h.leftAt) < linger {
		return false
	}
	h.cancel()
	h.cancel = nil
	return true
}

func (h *hub) run(ctx context.Context) {
	ps := h.d.c.rdb.Subscribe(ctx, liveChannels...)
	defer ps.Close()
	msgs := ps.Channel(redis.WithChannelSize(1024))
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	h.pushCounts(ctx)
	lastCounts := time.Now()
	var resumeLog time.Time // while not zero, ql:log is left until then
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			h.add(liveEvent{m.Channel, m.Payload, time.Now().Unix()})
		case <-flush.C:
			if h.idle() {
				return
			}
			n := h.flushEvents(!resumeLog.IsZero())
			switch {
			case resumeLog.IsZero() && n > busyEvents:
				ps.Unsubscribe(ctx, "ql:log")
				resumeLog = time.Now().Add(sampleGap)
			case !resumeLog.IsZero() && time.Now().After(resumeLog):
				ps.Subscribe(ctx, "ql:log")
				resumeLog = time.Time{}
			}
			busy := n > 0 || !resumeLog.IsZero()
			if since := time.Since(lastCounts); h.due() || since >= countsIdle || busy && since >= countsBusy {
				h.pushCounts(ctx)
				lastCounts = time.Now()
			}
		}
	}
}

func (h *hub) add(e liveEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.received++
	if len(h.pending) < eventsPerFlush {
		h.pending = append(h.pending, e)
	} else {
		h.dropped++
	}
}

// flushEvents sends the events gathered since the last flush and returns
// how many arrived. sampled says ql:log is being sampled (the pages say
// so).
func (h *hub) flushEvents(sampled bool) int {
	h.mu.Lock()
	events, dropped, n := h.pending, h.dropped, h.received
	h.pending, h.dropped, h.received = nil, 0, 0
	h.mu.Unlock()
	if len(events) > 0 {
		b, _ := json.Marshal(struct {
			Events  []liveEvent `json:"events"`
			Dropped int         `json:"dropped"`
			Sampled bool        `json:"sampled"`
		}{events, dropped, sampled || n > busyEvents})
		h.broadcast(sse("events", b))
	}
	return n
}

func (h *hub) due() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.countsDue
}

// pushCounts reads the counts and sends them to every page. A page that
// joins while they are read gets them at the next flush.
func (h *hub) pushCounts(ctx context.Context) {
	h.mu.Lock()
	h.countsDue = false
	h.mu.Unlock()
	if b, err := h.d.countsJSON(ctx); err == nil {
		h.broadcast(sse("counts", b))
	}
}

// broadcast hands msg to every page; a page too slow to take it misses it.
func (h *hub) broadcast(msg []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.clients {
		select {
		case ch <- msg:
		default:
		}
	}
}

func (d *Dashboard) countsJSON(ctx context.Context) ([]byte, error) {
	qs, err := d.queues(ctx)
	if err != nil {
		return nil, err
	}
	groups, total, err := d.failedGroups(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(liveCounts{qs, atMost(groups, overviewRows), total, d.sampler.throughput("")})
}

// sse frames one Server-Sent Event.
func sse(event string, data []byte) []byte {
	out := make([]byte, 0, len(data)+len(event)+16)
	out = append(out, "event: "...)
	out = append(out, event...)
	out = append(out, "\ndata: "...)
	out = append(out, data...)
	return append(out, "\n\n"...)
}

// serveEvents streams the live events and counts to one page.
func (d *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// A listener's write timeout must not end a stream that lives as long
	// as the page.
	rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	ch := d.hub.join()
	defer d.hub.leave(ch)
	// The counts come from the hub, which reads them for every page at
	// once: the first page's join starts it reading, a later page's makes
	// it read at the next flush.
	w.Write([]byte("retry: 2000\n\n"))
	if rc.Flush() != nil {
		return
	}
	keepAlive := time.NewTicker(20 * time.Second)
	defer keepAlive.Stop()
	for {
		var msg []byte
		select {
		case <-r.Context().Done():
			return
		case <-d.ctx.Done():
			return
		case msg = <-ch:
		case <-keepAlive.C:
			msg = []byte(": keep-alive\n\n")
		}
		if _, err := w.Write(msg); err != nil || rc.Flush() != nil {
			return
		}
	}
}
