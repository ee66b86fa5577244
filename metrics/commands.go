package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/qlessd/qlessd/commands"
)

// CommandSources are the server's per-command and fsync statistics, the
// ones INFO commandstats and LATENCY read (server.CommandStats, FsyncStats).
type CommandSources struct {
	Commands func() []commands.CommandStat
	Fsync    func() commands.HistogramSnapshot
}

var (
	descCommands = prometheus.NewDesc("qlessd_commands_total",
		"Commands run, by name (subcommands as client|list), as INFO commandstats counts calls.", []string{"command"}, nil)
	descCommandDuration = prometheus.NewDesc("qlessd_command_duration_seconds",
		"How long commands ran, all commands together.", nil, nil)
	descFsync = prometheus.NewDesc("qlessd_fsync_duration_seconds",
		"How long each fsync of the data file took.", nil, nil)
)

type commandCollector struct{ src CommandSources }

// CommandCollector reads the statistics when scraped: the counting is done
// on the command path already, for INFO.
func CommandCollector(src CommandSources) prometheus.Collector { return commandCollector{src} }

// Describe implements prometheus.Collector.
func (c commandCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descCommands
	ch <- descCommandDuration
	ch <- descFsync
}

// Collect implements prometheus.Collector.
func (c commandCollector) Collect(ch chan<- prometheus.Metric) {
	var all commands.HistogramSnapshot
	for _, st := range c.src.Commands() {
		ch <- prometheus.MustNewConstMetric(descCommands, prometheus.CounterValue, float64(st.Calls), st.Name)
		all.Count += st.Duration.Count
		all.Sum += st.Duration.Sum
		if all.Buckets == nil {
			all.Buckets = make([]uint64, len(commands.DurationBounds))
		}
		for i, n := range st.Duration.Buckets {
			all.Buckets[i] += n
		}
	}
	ch <- histogram(descCommandDuration, all)
	ch <- histogram(descFsync, c.src.Fsync())
}

func histogram(d *prometheus.Desc, h commands.HistogramSnapshot) prometheus.Metric {
	buckets := make(map[float64]uint64, len(commands.DurationBounds))
	for i, bound := range commands.DurationBounds {
		if i < len(h.Buckets) {
			buckets[bound] = h.Buckets[i]
		} else {
			buckets[bound] = 0
		}
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum, buckets)
}
