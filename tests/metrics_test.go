package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
)

// scrape fetches /metrics and parses Prometheus's text format.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("GET /metrics: %s\n%s", res.Status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// series returns a family's values by their labels as "k=v,k=v" (sorted
// by label name, as the format writes them).
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.Metric {
		var labels []string
		for _, l := range m.Label {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		v := 0.0
		switch {
		case m.Gauge != nil:
			v = m.Gauge.GetValue()
		case m.Counter != nil:
			v = m.Counter.GetValue()
		case m.Untyped != nil:
			v = m.Untyped.GetValue()
		}
		out[strings.Join(labels, ",")] = v
	}
	return out
}

// qlessLoad drives one qlessd through a mixed load at explicit times a few
// minutes back, so that a lock with a one-second heartbeat has expired by
// the time of the scrape without the test waiting.
type qlessLoad struct {
	t   *testing.T
	rdb *redis.Client
	now float64
}

func (l *qlessLoad) do(fn string, args ...any) any {
	l.t.Helper()
	l.now++
	v, err := l.rdb.Do(context.Background(), append([]any{"QLESS", fn, strconv.FormatFloat(l.now, 'f', 3, 64)}, args...)...).Result()
	if err != nil && err != redis.Nil {
		l.t.Fatalf("QLESS %s %v: %v", fn, args, err)
	}
	return v
}

func (l *qlessLoad) put(queue, jid string, opts ...any) {
	l.t.Helper()
	l.do("put", append([]any{"w0", queue, jid, "K", "{}", 0}, opts...)...)
}

// pop pops count jobs and checks how many came.
func (l *qlessLoad) pop(queue, worker string, count, want int) {
	l.t.Helper()
	var jobs []json.RawMessage
	reply := l.do("pop", queue, worker, count).(string)
	if reply != "{}" {
		if err := json.Unmarshal([]byte(reply), &jobs); err != nil {
			l.t.Fatalf("pop reply %s: %v", reply, err)
		}
	}
	if len(jobs) != want {
		l.t.Fatalf("pop %s: %d jobs, want %d: %s", queue, len(jobs), want, reply)
	}
}

// run is the load; it returns what it put, popped, completed, failed and
// retried, by queue and event as qlessd_jobs_total labels them.
func (l *qlessLoad) run(script string) map[string]float64 {
	l.do("config.set", "grace-period", 0)
	l.do("config.set", "c-heartbeat", 1)
	for i := 1; i <= 5; i++ {
		l.put("a", fmt.Sprint("a", i))
	}
	for i := 1; i <= 3; i++ {
		l.put("b", fmt.Sprint("b", i))
	}
	l.put("c", "c1")
	l.put("c", "c2")
	l.pop("a", "w1", 3, 3) // a1 a2 a3
	l.do("complete", "a1", "w1", "a", "{}")
	l.do("fail", "a2", "w1", "boom", "it broke")
	l.do("retry", "a3", "a", "w1", 0)
	l.pop("b", "w2", 1, 1) // b1
	l.do("complete", "b1", "w2", "b", "{}", "next", "c")
	l.do("put", "w0", "b", "bs", "K", "{}", 86400) // scheduled

	l.put("c", "cd", "depends", `["a4"]`)
	l.put("a", "ax", "priority", 10, "retries", 0)
	l.pop("a", "w1", 1, 1) // ax
	l.do("retry", "ax", "a", "w1", 0)
	l.pop("c", "w3", 1, 1) // c1, its lock one second long
	l.now += 5
	l.pop("c", "w3", 1, 1) // c1 again: its lock expired, no grace
	l.do("recur", "a", "ra", "K", "{}", "interval", 86400, 0)
	// EVALSHA of the printed script, served natively too.
	sha, err := l.rdb.ScriptLoad(context.Background(), script).Result()
	if err != nil {
		l.t.Fatal(err)
	}
	l.now++
	if err := l.rdb.EvalSha(context.Background(), sha, nil, "put", strconv.FormatFloat(l.now, 'f', 3, 64),
		"w0", "a", "a6", "K", "{}", 0).Err(); err != nil {
		l.t.Fatal(err)
	}
	return map[string]float64{
		// a1-a5, ax, a6; a1-a3, ax; a1; a2, ax out of retries; a3
		"event=put,queue=a": 7, "event=popped,queue=a": 4, "event=completed,queue=a": 1,
		"event=failed,queue=a": 2, "event=retried,queue=a": 1,
		// b1-b3, bs; b1; b1 moved on to c
		"event=put,queue=b": 4, "event=popped,queue=b": 1, "event=completed,queue=b": 1,
		"event=failed,queue=b": 0, "event=retried,queue=b": 0,
		// c1, c2, b1 moved on, cd; c1 twice; c1's lost lock
		"event=put,queue=c": 4, "event=popped,queue=c": 2, "event=completed,queue=c": 0,
		"event=failed,queue=c": 0, "event=retried,queue=c": 1,
	}
}

// After a mixed load through QLESS (fast paths and Lua) and EVALSHA of the
// printed script, /metrics shows what QLESS queues, failed and workers
// show, the jobs counted as the load made them, and INFO qless the same.
func TestMetricsAfterMixedLoad(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1")
	script, err := exec.Command(binary(t), "script").Output()
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr, PoolSize: 1})
	defer rdb.Close()
	load := &qlessLoad{t: t, rdb: rdb, now: float64(time.Now().Unix() - 600)}
	counted := load.run(string(script))

	ctx := context.Background()
	queuesJSON := rdb.Do(ctx, "QLESS", "queues", "now").Val().(string)
	failedJSON := rdb.Do(ctx, "QLESS", "failed", "now").Val().(string)
	workersJSON := rdb.Do(ctx, "QLESS", "workers", "now").Val().(string)
	fams := scrape(t, base)
	info := rdb.Info(ctx, "qless", "persistence", "clients").Val()

	var queues []map[string]any
	if err := json.Unmarshal([]byte(queuesJSON), &queues); err != nil {
		t.Fatal(queuesJSON, err)
	}
	wantJobs := map[string]float64{}
	for _, qc := range queues {
		for _, s := range []string{"waiting", "running", "scheduled", "stalled", "depends", "recurring"} {
			wantJobs["queue="+qc["name"].(string)+",state="+s] = qc[s].(float64)
		}
		// QLESS queues names throttled and rated only when a queue has
		// such jobs.
		for _, s := range []string{"throttled", "rated"} {
			n, _ := qc[s].(float64)
			wantJobs["queue="+qc["name"].(string)+",state="+s] = n
		}
	}
	sameSeries(t, "qlessd_queue_jobs", series(fams, "qlessd_queue_jobs"), wantJobs)
	// Each state the load made is there, so the comparison is not of zeros.
	for k, v := range map[string]float64{"queue=a,state=waiting": 4, "queue=a,state=recurring": 1,
		"queue=b,state=scheduled": 1, "queue=c,state=stalled": 1, "queue=c,state=depends": 1} {
		if wantJobs[k] != v {
			t.Errorf("QLESS queues: %s = %v, want %v: %s", k, wantJobs[k], v, queuesJSON)
		}
	}

	var failed map[string]float64
	if err := json.Unmarshal([]byte(failedJSON), &failed); err != nil {
		t.Fatal(failedJSON, err)
	}
	wantFailed := map[string]float64{}
	for g, n := range failed {
		wantFailed["group="+g] = n
	}
	sameSeries(t, "qlessd_failed_jobs", series(fams, "qlessd_failed_jobs"), wantFailed)
	if len(failed) != 2 || failed["boom"] != 1 || failed["failed-retries-a"] != 1 {
		t.Errorf("QLESS failed: %s", failedJSON)
	}

	var workers []any
	if err := json.Unmarshal([]byte(workersJSON), &workers); err != nil {
		t.Fatal(workersJSON, err)
	}
	sameSeries(t, "qlessd_workers", series(fams, "qlessd_workers"), map[string]float64{"": float64(len(workers))})
	if len(workers) != 3 {
		t.Errorf("QLESS workers: %s", workersJSON)
	}
	sameSeries(t, "qlessd_jobs_total", series(fams, "qlessd_jobs_total"), counted)
	// The test's client and the dashboard's (mounted on the same listener)
	// connections, as INFO counts them.
	clients, _ := strconv.ParseFloat(infoField(info, "connected_clients"), 64)
	if clients < 1 {
		t.Errorf("INFO connected_clients: %q", infoField(info, "connected_clients"))
	}
	sameSeries(t, "qlessd_connected_clients", series(fams, "qlessd_connected_clients"), map[string]float64{"": clients})
	fileBytes := series(fams, "qlessd_data_file_bytes")[""]
	if want := infoField(info, "aof_current_size"); fileBytes == 0 || strconv.FormatFloat(fileBytes, 'f', -1, 64) != want {
		t.Errorf("qlessd_data_file_bytes %v, INFO aof_current_size %s", fileBytes, want)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}

	// INFO qless: the same numbers, summed over queues.
	if !strings.Contains(info, "# Qless\r\n") {
		t.Errorf("no # Qless section:\n%s", info)
	}
	for field, want := range map[string]string{
		"queues": "3", "jobs_waiting": "8", "jobs_running": "0", "jobs_scheduled": "1", "jobs_stalled": "1",
		"jobs_depends": "1", "jobs_recurring": "1", "jobs_throttled": "0", "failed_groups": "2", "failed_jobs": "2", "workers": "3",
		"total_jobs_put": "15", "total_jobs_popped": "7", "total_jobs_completed": "2", "total_jobs_failed": "2",
		"total_jobs_retried": "2", "native_client_scripts": "yes",
	} {
		if got := infoField(info, field); got != want {
			t.Errorf("INFO qless %s = %q, want %s", field, got, want)
		}
	}
}

func sameSeries(t *testing.T, name string, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %v\nwant %v", name, got, want)
		return
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s{%s} = %v, want %v (all: %v)", name, k, g, v, got)
		}
	}
}

func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}
