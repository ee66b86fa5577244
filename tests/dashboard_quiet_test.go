package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qlessd/qlessd/dashboard"
	"github.com/redis/go-redis/v9"
)

// dashboardClients returns the CLIENT LIST lines of the dashboard's
// connections (those it named) and of every connection subscribed to
// something.
func dashboardClients(t *testing.T, d *dash) (named, subscribed []string) {
	t.Helper()
	list, err := d.rdb.ClientList(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		if strings.Contains(l, " name=qlessd-dashboard ") {
			named = append(named, l)
		}
		if !strings.Contains(l, " sub=0 ") {
			subscribed = append(subscribed, l)
		}
	}
	return named, subscribed
}

// quietWindow waits until periods sampling periods pass with neither a
// sample nor a QLESS call, and fails if that does not happen before a
// generous deadline (the live hub keeps reading for a while after the
// last page closes).
func quietWindow(t *testing.T, d *dash, periods int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p0, s0 := d.d.SamplerTicks()
		calls := d.qlessCalls()
		for p, _ := d.d.SamplerTicks(); p < p0+periods; p, _ = d.d.SamplerTicks() {
			if time.Now().After(deadline) {
				t.Fatal("the sampler's period stopped passing")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if _, s := d.d.SamplerTicks(); s == s0 && d.qlessCalls() == calls {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard kept reading with nobody looking: %d QLESS calls in a window of %d periods",
				d.qlessCalls()-calls, periods)
		}
	}
}

// With nobody looking the dashboard makes no QLESS call and holds no
// connection; a page opens named connections; while the live stream is
// open the throughput sampler reads, and it stops when the stream closes.
func TestDashboardQuietWhenNobodyLooks(t *testing.T) {
	t.Parallel()
	d := startDash(t, dashboard.Options{SampleEvery: 20 * time.Millisecond})
	d.qless("put", "producer", "quiet-q", "q-1", "K", "{}", 0)
	before := d.qlessCalls()
	p0, _ := d.d.SamplerTicks()
	dashWait(t, func() bool { p, _ := d.d.SamplerTicks(); return p >= p0+10 })
	if calls := d.qlessCalls(); calls != before {
		t.Fatalf("no page open, yet %d QLESS calls over 10 sampling periods", calls-before)
	}
	if _, s := d.d.SamplerTicks(); s != 0 {
		t.Fatalf("no page open, yet %d samples", s)
	}
	if named, _ := dashboardClients(t, d); len(named) != 0 {
		t.Fatalf("no page open, yet dashboard connections:\n%s", strings.Join(named, "\n"))
	}

	// A page opens a connection, named.
	if code, body := d.get("/queues/quiet-q"); code != http.StatusOK {
		t.Fatalf("GET /queues/quiet-q: %d\n%s", code, body)
	}
	if named, _ := dashboardClients(t, d); len(named) == 0 {
		t.Fatal("the page was read over no connection named qlessd-dashboard")
	}

	// The live stream: its subscription is named too, and the sampler reads
	// while it is open (a completion shows in the throughput).
	ctx, closeStream := context.WithCancel(context.Background())
	defer closeStream()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.srv.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && sc.Text() != "event: counts" {
	}
	_, s0 := d.d.SamplerTicks()
	dashWait(t, func() bool { _, s := d.d.SamplerTicks(); return s >= s0+3 })
	dashWait(t, func() bool {
		_, subs := dashboardClients(t, d)
		return len(subs) == 1 && strings.Contains(subs[0], " name=qlessd-dashboard ")
	})
	d.qless("pop", "quiet-q", "w", 1)
	d.qless("complete", "q-1", "w", "quiet-q", "{}")
	dashWait(t, func() bool {
		_, body := d.get("/api/throughput?queue=quiet-q")
		var tp dashboard.Throughput
		json.Unmarshal([]byte(body), &tp)
		return len(tp.Counts) == 60 && tp.Counts[59]+tp.Counts[58] == 1
	})

	// The last page leaves: the reads stop.
	closeStream()
	quietWindow(t, d, 10)
}

// qlessd's own dashboard (--http-addr) makes no QLESS call and holds no
// connection until a page is opened; the page's connection is named.
func TestDashboardQlessdQuietUntilOpened(t *testing.T) {
	t.Parallel()
	q, base := StartQlessdHTTP(t, "", "127.0.0.1")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	defer rdb.Close()
	ctx := context.Background()
	get := func(path string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	// /metrics answering says the listener, and the dashboard mounted
	// beside it, are up; /metrics reads the store directly.
	get("/metrics")
	info := func() string {
		t.Helper()
		s, err := rdb.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	clients := func() string {
		t.Helper()
		s, err := rdb.ClientList(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := info(); strings.Contains(s, "cmdstat_qless") {
		t.Fatalf("no page open, yet QLESS calls:\n%s", s)
	}
	if s := clients(); strings.Contains(s, "qlessd-dashboard") {
		t.Fatalf("no page open, yet a dashboard connection:\n%s", s)
	}
	get("/")
	if s := info(); !strings.Contains(s, "cmdstat_qless") {
		t.Fatalf("the overview was read without QLESS:\n%s", s)
	}
	if s := clients(); !strings.Contains(s, " name=qlessd-dashboard ") {
		t.Fatalf("the overview was read over no connection named qlessd-dashboard:\n%s", s)
	}
}
