package qless

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/resp"
	"github.com/qlessd/qlessd/scripts"
	"github.com/qlessd/qlessd/store"
)

// QLESS bpop <now> <worker> <count> <timeout> <queue> [<queue> ...] pops
// as pop does, from the queues in the order given, and when none has work
// waits up to timeout seconds (0: forever) for one to get some. It is a
// blocking command of the server's (server/blocking.go): it waits on the
// keys whose writes can give a queue work (its work set, scheduled and
// recurring sets, the paused set, and its locks where a concurrency limit
// holds jobs back), and asks to be run again by the clock when a scheduled
// job, a recurring job or an expiring lock falls due, or a rate holding
// its work back has room again (qless/rates.go). A run again pops
// with now moved on by the time waited, so locks and history read as the
// client's clock would.

type bpopCall struct {
	now     float64
	worker  []byte
	count   int
	timeout time.Duration
	queues  [][]byte
}

// parseBPop reads call (bpop now worker count timeout queue...) or
// returns the error qless's style gives.
func parseBPop(call [][]byte) (bpopCall, string) {
	var b bpopCall
	arg := func(i int) []byte { return argAt(call, i) }
	now, err := strconv.ParseFloat(string(arg(1)), 64)
	if err != nil || math.IsNaN(now) || math.IsInf(now, 0) {
		return b, `Arg "now" missing or not a number: ` + luaShown(arg(1))
	}
	b.now = now
	if b.worker = arg(2); len(b.worker) == 0 {
		return b, `BPop(): Arg "worker" missing`
	}
	count, err := strconv.ParseFloat(string(arg(3)), 64)
	switch {
	case err != nil || math.IsNaN(count):
		return b, `BPop(): Arg "count" missing or not a number: ` + luaShown(arg(3))
	case count < 1 || count > 1000 || count != math.Floor(count):
		return b, `BPop(): Arg "count" must be a whole number from 1 to 1000: ` + string(arg(3))
	}
	b.count = int(count)
	if arg(4) == nil {
		return b, `BPop(): Arg "timeout" missing or not a number: nil`
	}
	timeout, msg := commands.ParseBlockTimeout(arg(4))
	if msg != "" {
		return b, `BPop(): Arg "timeout" must be a number of seconds, 0 or more: ` + string(arg(4))
	}
	b.timeout = timeout
	if b.queues = call[min(5, len(call)):]; len(b.queues) == 0 {
		return b, `BPop(): Arg "queue" missing`
	}
	return b, ""
}

// luaShown is how qless's messages show an argument: as given, nil when
// it is missing.
func luaShown(b []byte) string {
	if b == nil {
		return "nil"
	}
	return string(b)
}

// runBPop serves one run of bpop: the first, again on a write to a key it
// waits on, again by the clock, or last after its timeout.
func runBPop(c *commands.Ctx, call [][]byte, e *scripts.Engine) {
	b, msg := parseBPop(call)
	if msg != "" {
		c.Error("ERR " + msg)
		return
	}
	now := b.now + c.Waited.Seconds()
	nowArg := []byte(strconv.FormatFloat(now, 'f', 6, 64))
	var jobs []json.RawMessage
	for _, q := range b.queues {
		got, errMsg := popInto(c, e, [][]byte{[]byte("pop"), nowArg, q, b.worker, []byte(strconv.Itoa(b.count - len(jobs)))})
		if errMsg != "" {
			c.Error(errMsg)
			return
		}
		if jobs = append(jobs, got...); len(jobs) == b.count {
			break
		}
	}
	if len(jobs) > 0 || !c.CanBlock() {
		if len(jobs) > 0 {
			c.Undelivered = handBackJobs(c.Tx.Selected(), b.worker, now, jobs)
		}
		writeJobs(c.W, jobs)
		return
	}
	keys, anyChange := bpopKeys(c.Tx, b.queues)
	c.Block = &commands.BlockRequest{
		DB: c.Tx.Selected(), Keys: keys, Timeout: b.timeout, AnyChange: anyChange,
		Recheck: nextDue(c.Tx, b.queues, now),
	}
}

// popInto runs one pop as QLESS would and returns the jobs it popped, or
// the error it replied.
func popInto(c *commands.Ctx, e *scripts.Engine, call [][]byte) ([]json.RawMessage, string) {
	var rec resp.Recorder
	if !runFast(c, &rec, call, switchesAll, e) {
		e.CallLibrary(commands.ScriptHost(c, false), libName, call, &rec)
	}
	v := rec.Value()
	if v.IsError() {
		return nil, v.Str
	}
	var jobs []json.RawMessage
	if v.Str == "{}" || json.Unmarshal([]byte(v.Str), &jobs) != nil {
		return nil, ""
	}
	return jobs, ""
}

// writeJobs replies as pop does, a JSON array of the jobs; none is [].
func writeJobs(w resp.Writer, jobs []json.RawMessage) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, j := range jobs {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.Write(j)
	}
	sb.WriteByte(']')
	w.WriteBulkString(sb.String())
}

// bpopKeys are the keys whose writes may give one of queues work: a put,
// retry, move or dependency completing adds to its work set; a delayed put
// or recurring job changes when the clock must look again; an unpause
// changes the paused set; and under a concurrency limit or the queue's
// own throttle a finished job (its lock gone) frees a slot. A job waiting
// for another throttle comes back through the work set. The work, scheduled
// and recurring sets matter while they exist; the others' writes matter
// even when they leave them empty (anyChange): the last unpause, the last
// lock let go. Offering a work set that a pop emptied would run every
// waiter again for nothing, each put served to one of fifty.
func bpopKeys(tx *store.Tx, queues [][]byte) (keys, anyChange []string) {
	anyChange = []string{pausedQueuesKey}
	for _, q := range queues {
		name := string(q)
		keys = append(keys, queueKey(name, "work"), queueKey(name, "scheduled"), queueKey(name, "recur"))
		if limit, ok, _ := tx.HGet(configKey, name+"-max-concurrency"); ok && limit != "" && limit != "0" {
			anyChange = append(anyChange, queueKey(name, "locks"))
		}
		if tx.Exists(queueRateKey(name)) {
			// Its rate set again or deleted may let work out at once.
			anyChange = append(anyChange, queueRateKey(name))
		}
		if tx.Exists(queueThrottleKey(name)) {
			// While the queue's throttle is full its work waits in the
			// work set: a lock let go frees a slot.
			anyChange = append(anyChange, queueThrottleKey(name)+"-locks")
		}
	}
	return append(keys, anyChange...), anyChange
}

// nextDue is how long until the first scheduled job, recurring job or lock
// of queues falls due after now, or a rate holding their work has room
// again (0: none does). What is due already and
// still was not popped (a paused queue, a full concurrency limit) waits for
// a write instead.
func nextDue(tx *store.Tx, queues [][]byte, now float64) time.Duration {
	first := math.Inf(1)
	for _, q := range queues {
		for _, kind := range []string{"scheduled", "recur", "locks"} {
			z, err := tx.OpenZSet(queueKey(string(q), kind))
			if err != nil {
				continue
			}
			z.RangeByScore(store.ScoreBound{Value: now, Excl: true}, store.ScoreBound{Value: math.Inf(1)}, false, func(e store.Entry) bool {
				first = min(first, e.Score)
				return false
			})
			z.Release()
		}
		// Work held back by a rate: its window frees it in time.
		first = min(first, rateFree(tx, string(q), now))
	}
	if math.IsInf(first, 1) {
		return 0
	}
	// A time past what a Duration holds (a paused recurring job's next
	// run, 10^12 seconds on) is looked at again in a day: the pop then
	// finds it still to come and asks again.
	if first-now > maxRecheck.Seconds() {
		return maxRecheck
	}
	// Past the due time, so the pop that runs then finds it due.
	return time.Duration((first-now)*float64(time.Second)) + time.Millisecond
}

// maxRecheck is the longest a blocked bpop waits for a due time.
const maxRecheck = 24 * time.Hour

// bpopBlocks reports whether a QLESS call is a bpop, which the server
// serves as it serves blocking commands.
func bpopBlocks(args [][]byte) bool {
	return len(args) > 1 && commands.EqualFold(args[1], "bpop")
}
