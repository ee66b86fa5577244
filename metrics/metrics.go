// Package metrics serves qlessd's Prometheus metrics (/metrics on the HTTP
// listener): the qless keyspace and the server, read when scraped, and the
// Go runtime and process collectors.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a registry with the Go runtime and process collectors
// and the given ones (Collector, and whatever else qlessd has to say). A
// collector added later is one more argument here, or one
// reg.MustRegister call.
func NewRegistry(cs ...prometheus.Collector) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(cs...)
	return reg
}

// Handler serves reg's metrics in Prometheus's formats.
func Handler(reg *prometheus.Registry) http.Handler {
	// A metric that cannot be served (two queues whose names differ only
	// in bytes that are not UTF-8) leaves the others served.
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorHandling: promhttp.ContinueOnError})
}
