GO ?= go
BIN := bin/qlessd
# staticcheck as .ci/run installs it (go install puts it in GOPATH/bin).
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build run test fuzz bench vet fmt release soak

build:
	$(GO) build -o $(BIN) ./cmd/qlessd

# Starts a server on 127.0.0.1:6379 with its data in ./qlessd-data.
run: build
	./$(BIN) $(ARGS)

# Every test, differential ones included: they need redis-server 7.0. The
# end-to-end tests run a second time against one goroutine per connection
# (--event-loop no), the way qlessd serves where epoll is missing, and those
# where connections of two loops meet run against --event-loops 2, whose
# loops read and write one system call at a time (--io-uring no), as where
# io_uring is missing or forbidden. Last, each fuzzer runs briefly (make fuzz).
TWO_LOOP_TESTS := TestScripting|TestEventLoop|TestQless|TestMulti|TestBlocking|TestPubSub
test: $(STATICCHECK)
	./tests/ensure-redis.sh
	./tests/ensure-tools.sh
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GO) test -count=1 -timeout 20m ./...
	QLESSD_ARGS="--event-loop no" $(GO) test -count=1 -timeout 20m ./tests
	QLESSD_ARGS="--event-loops 2 --io-uring no" $(GO) test -count=1 -timeout 20m ./tests -run '$(TWO_LOOP_TESTS)'
	$(MAKE) fuzz

# Long runs of the randomized fault tests: 200 SIGSTOP/SIGCONT pauses of
# cluster leaders and followers under load, every node's store compared key
# by key every five (QLESSD_CLUSTER_SEED=n replays a run).
soak:
	QLESSD_CLUSTER_PAUSES=200 $(GO) test -count=1 -timeout 120m -v ./tests -run 'TestClusterPausesKeepStoresEqual'

# staticcheck, when missing, from the Go module proxy.
$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Each fuzz test for FUZZTIME (go test fuzzes one target at a time), with one
# worker, the machine being shared; the seed corpora in testdata/fuzz run with
# every plain go test too. A count, not a duration: with a duration Go 1.26's
# coordinator can fail a target with "context deadline exceeded" as time runs
# out (golang/go#75804). `make fuzz FUZZTIME=2000000x` for a longer search; a
# crash one finds fails the run and is kept in its package's testdata/fuzz.
FUZZTIME ?= 20000x
FUZZ_TARGETS := ./store:FuzzJournalLoad ./server:FuzzRequest ./server:FuzzInline \
	./scripts/luacjson:FuzzDecode ./scripts/luacmsgpack:FuzzUnpack ./qless:FuzzQlessArgs
fuzz:
	for t in $(FUZZ_TARGETS); do \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s -parallel 1 "$${t%%:*}" || exit 1; \
	done

# qlessd against Redis (docs/performance.md), then qlessd alone against a
# 3-node cluster (put, pop1 at concurrency 50); ARGS="-cluster 0" skips it.
bench: build
	./tests/ensure-redis.sh
	$(GO) run ./tests/bench -cluster 3 -tls $(ARGS)

# Static binaries for Linux in dist/, with the version (VERSION, else the
# last tag, else the source's default) and the commit stamped in.
VERSION ?= $(shell git describe --tags --abbrev=0 2>/dev/null)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
RELEASE_LDFLAGS := -s -w $(if $(VERSION),-X main.version=$(VERSION)) $(if $(COMMIT),-X main.commit=$(COMMIT))
RELEASE_PLATFORMS := linux/amd64 linux/arm64
release:
	mkdir -p dist
	for p in $(RELEASE_PLATFORMS); do \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -ldflags '$(RELEASE_LDFLAGS)' \
			-o dist/qlessd-$${p%/*}-$${p#*/} ./cmd/qlessd || exit 1; \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')
