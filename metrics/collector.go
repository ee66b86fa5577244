package metrics

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/qlessd/qlessd/qless"
	"github.com/qlessd/qlessd/store"
)

// Sources are what Collector reads at each scrape.
type Sources struct {
	Store *store.DB
	// Clients returns how many clients are connected.
	Clients func() int
}

var (
	descQueueJobs = prometheus.NewDesc("qlessd_queue_jobs",
		"Jobs in a queue by state, as QLESS queues counts them.", []string{"queue", "state"}, nil)
	descFailedJobs = prometheus.NewDesc("qlessd_failed_jobs",
		"Failed jobs in a failure group, as QLESS failed counts them.", []string{"group"}, nil)
	descWorkers = prometheus.NewDesc("qlessd_workers",
		"Workers QLESS workers lists: those seen within max-worker-age.", nil, nil)
	descJobsTotal = prometheus.NewDesc("qlessd_jobs_total",
		"Jobs put, popped, completed, failed or retried in a queue since qlessd started.", []string{"queue", "event"}, nil)
	descClients = prometheus.NewDesc("qlessd_connected_clients",
		"Client connections open.", nil, nil)
	descDataFile = prometheus.NewDesc("qlessd_data_file_bytes",
		"Size of the append-only data file.", nil, nil)
)

// collector reads the qless keyspace in one read transaction per scrape,
// and the job counts qless keeps as it goes: nothing on the command paths
// waits for a scrape beyond that transaction.
type collector struct{ src Sources }

// Collector returns the collector of qlessd's own metrics.
func Collector(src Sources) prometheus.Collector { return collector{src} }

// Describe implements prometheus.Collector.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueueJobs, descFailedJobs, descWorkers, descJobsTotal, descClients, descDataFile} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	now := float64(time.Now().UnixMicro()) / 1e6
	var ov qless.Overview
	if c.src.Store != nil {
		c.src.Store.View(func(tx *store.Tx) error {
			ov = qless.ReadOverview(tx, now)
			return nil
		})
	}
	if c.src.Store != nil {
		ch <- metric(descDataFile, prometheus.GaugeValue, float64(c.src.Store.RewriteStatus().CurrentSize))
	}
	if c.src.Clients != nil {
		ch <- metric(descClients, prometheus.GaugeValue, float64(c.src.Clients()))
	}
	for _, q := range ov.Queues {
		for s, n := range q.Jobs {
			ch <- metric(descQueueJobs, prometheus.GaugeValue, float64(n), q.Queue, qless.JobState(s).String())
		}
	}
	for _, g := range ov.Failed {
		ch <- metric(descFailedJobs, prometheus.GaugeValue, float64(g.Jobs), g.Group)
	}
	ch <- metric(descWorkers, prometheus.GaugeValue, float64(ov.Workers))
	for _, q := range qless.JobCounts() {
		for e, n := range q.Counts {
			ch <- metric(descJobsTotal, prometheus.CounterValue, float64(n), q.Queue, qless.JobEvent(e).String())
		}
	}
}

// metric is a constant metric whose label values are made valid UTF-8, as
// Prometheus needs them: a queue's name may be any bytes.
func metric(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) prometheus.Metric {
	for i, l := range labels {
		labels[i] = strings.ToValidUTF8(l, "\uFFFD")
	}
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return m
}
