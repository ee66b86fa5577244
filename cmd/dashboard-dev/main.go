// Command dashboard-dev serves the dashboard package for a running qlessd,
// for working on the dashboard until the binary's own HTTP listener
// mounts it:
//
//	go run ./cmd/dashboard-dev -addr 127.0.0.1:6379 -http 127.0.0.1:7480
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/qlessd/qlessd/dashboard"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "qlessd's RESP address")
	listen := flag.String("http", "127.0.0.1:7480", "address to serve the dashboard on")
	admin := flag.Bool("admin", true, "allow actions (retry, cancel, pause...)")
	sample := flag.Duration("sample", 10*time.Second, "how often to count completed jobs while a page is open")
	flag.Parse()
	pass := os.Getenv("QLESSD_PASSWORD")
	d, err := dashboard.New(dashboard.Options{
		Addr:        *addr,
		Password:    func() string { return pass },
		Admin:       *admin,
		SampleEvery: *sample,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	log.Printf("dashboard for %s on http://%s/", *addr, *listen)
	log.Fatal(http.ListenAndServe(*listen, d))
}
