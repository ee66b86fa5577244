GO ?= go
BIN := bin/qlessd
# staticcheck as .ci/run installs it (go install puts it in GOPATH/bin).
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build run test soak probe fuzz bench vet fmt release \
	test-static test-vet test-staticcheck test-unit test-e2e test-e2e-goroutines test-e2e-two-loops test-fuzz

# -v names each package as it compiles: the first build compiles them all
# and takes a while, later ones only what changed.
build:
	@echo "building $(BIN) from ./cmd/qlessd (go build -v: the packages it compiles)"
	$(GO) build -v -o $(BIN) ./cmd/qlessd

# Starts a server on 127.0.0.1:6379 with its data in ./qlessd-data; its log
# says where clients connect and the dashboard's URL.
run: build
	./$(BIN) $(ARGS)

# Every test, differential ones included: they need redis-server 7.0. Each
# step runs whatever the ones before it found, and prints its result and
# time; make test fails at the end with a line naming each failed step, so a
# red run says everything that is wrong rather than the first thing.
#   static             go vet and staticcheck of every package, side by side
#   unit               every package but ./tests, in-process
#   e2e                ./tests against the built qlessd, as it serves by default
#   e2e-goroutines     MODE_TESTS against one goroutine per connection
#                      (--event-loop no), the way qlessd serves where epoll is missing
#   e2e-two-loops      MODE_TESTS against --event-loops 2 whose loops read and
#                      write one system call at a time (--io-uring no), as where
#                      io_uring is missing or forbidden
#   fuzz               each fuzzer briefly (make fuzz)
# make soak runs the long versions: the whole of ./tests in every mode, the
# 30-round cluster failover loop, and longer fuzzing.
TEST_STEPS := static unit e2e e2e-goroutines e2e-two-loops fuzz
# Only what the connection mode changes runs in the extra modes: the event
# loop or goroutine serving a connection, its reads and writes (protocol
# parsing, output limits, slow readers), blocking and waking, pub/sub
# delivery, MULTI/WATCH, busy and killed scripts, client bookkeeping
# (CLIENT, timeouts, max clients, MONITOR). What a command computes is the
# same code in every mode and runs once, in e2e. A test of a new connection
# behaviour goes in this list by its name; one that starts a server in each
# mode itself (TestBigValues*) stays out, as e2e runs all its modes.
MODE_TEST_NAMES := TestEventLoop TestBlocking TestListsBlocking TestZSetsBlockingPop \
	TestQlessBPop TestQlessThrottleWakesBPop TestPubSub TestSlowSubscriber TestMulti TestWatch \
	TestScriptingBusy TestScriptingPastLimit TestScriptingShutdownNosave TestScriptingShortScripts \
	TestScriptingNoTimeLimit TestScriptingKill TestScriptingUnkillable TestQlessLongCall \
	TestProtocol TestClientQueryBufferLimit TestAnnouncedBulk TestHugeMultibulk \
	TestClientDifferential TestClientReply TestClientListAndKill TestMaxClients TestIdleTimeout TestOnDisconnect TestManyConnections \
	TestObserveMonitor TestObserveStalledMonitor TestCrossProtocol TestRESP3 \
	TestACLRevoke TestACLLoadDisconnects TestConfigSetPort TestTLSConfigSetBind
empty :=
space := $(empty) $(empty)
MODE_TESTS := ^($(subst $(space),|,$(strip $(MODE_TEST_NAMES))))
# The packages that need no started qlessd: everything but ./tests.
UNIT_PKGS = $(shell $(GO) list ./... | grep -v '/tests$$')
# Test binaries of several packages, and tests that start their own servers
# (t.Parallel), run side by side; TESTFLAGS adds to every go test (say -v).
# make test passes -short: the randomized comparisons that read it run a
# few rounds (qless's fast paths against its Lua), make soak all of them.
TEST_P ?= 2
TEST_PARALLEL ?= 4
TESTFLAGS ?=
GOTEST = $(GO) test -count=1 -p $(TEST_P) -parallel $(TEST_PARALLEL) $(TESTFLAGS)
SHORT ?= -short
E2E_TIMEOUT ?= 20m

test: $(STATICCHECK)
	./tests/ensure-redis.sh
	./tests/ensure-tools.sh
	@failed=; begin=$$(date +%s); \
	for step in $(TEST_STEPS); do \
		echo "==> test-$$step"; start=$$(date +%s); \
		if $(MAKE) --no-print-directory test-$$step; then result=ok; else result=FAILED; failed="$$failed $$step"; fi; \
		line="$$step: $$result ($$(( $$(date +%s) - start ))s)"; summary="$$summary$$line\n"; \
		echo "==> $$line"; \
	done; \
	printf "\nmake test, step by step:\n$$summary"; \
	if [ -n "$$failed" ]; then \
		echo "make test FAILED after $$(( $$(date +%s) - begin ))s; failed steps:$$failed"; exit 1; \
	fi; \
	echo "make test passed: every step ($$(( $$(date +%s) - begin ))s)"

# vet and staticcheck at once, each's output printed when both are done and
# a failure named: each builds and type-checks every package, and much of
# that waits on one package's compile before the next, leaving a core idle;
# what one has built the other finds in the build cache. In two fresh
# copies of the tree at load 24-30: one after the other 601 s, side by side
# 285 s, for about the same CPU time (121 and 141 s; one run each).
test-static: $(STATICCHECK)
	@vet=$$(mktemp) && sc=$$(mktemp) && trap 'rm -f $$vet $$sc' EXIT; \
	$(GO) vet ./... >$$vet 2>&1 & pid=$$!; \
	$(STATICCHECK) ./... >$$sc 2>&1; s=$$?; wait $$pid; v=$$?; \
	echo "go vet ./..."; cat $$vet; echo "staticcheck ./..."; cat $$sc; \
	[ $$v = 0 ] || echo "go vet FAILED"; [ $$s = 0 ] || echo "staticcheck FAILED"; \
	[ $$v = 0 ] && [ $$s = 0 ]
test-vet:
	$(GO) vet ./...
test-staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...
test-unit:
	$(GOTEST) $(SHORT) -timeout 10m $(UNIT_PKGS)
# The three end-to-end steps run one build of ./tests (go test -c) and of
# qlessd (QLESSD_BIN), remade when a file of the module changed: building
# the tests, linking and vetting them once, not once a step. The binary runs
# in ./tests as go test would; TESTFLAGS' -v or -run reach it as -test.v,
# -test.run.
E2E_DIR := bin/e2e
E2E_SRCS := $(shell find . -type f -not -path './.git/*' -not -path './bin/*' -not -path './dist/*' \
	-not -path './qlessd-data/*' -not -path ./qlessd -not -path ./tests/bench/bench -not -name '*.test' 2>/dev/null)
E2E_MODE = $(QLESSD_ARGS)
E2E_TESTFLAGS = $(patsubst -%,-test.%,$(patsubst -test.%,-%,$(SHORT) $(TESTFLAGS)))
E2E_RUN = cd tests && QLESSD_ARGS="$(E2E_MODE)" QLESSD_BIN=$(CURDIR)/$(E2E_DIR)/qlessd ../$(E2E_DIR)/tests.test \
	-test.count=1 -test.parallel $(TEST_PARALLEL) -test.timeout $(E2E_TIMEOUT) $(E2E_TESTFLAGS)
$(E2E_DIR)/tests.test: $(E2E_SRCS)
	$(GO) test -c -o $@ ./tests
$(E2E_DIR)/qlessd: $(E2E_SRCS)
	$(GO) build $(QLESSD_BUILD_FLAGS) -o $@ ./cmd/qlessd
E2E_BINS := $(E2E_DIR)/tests.test $(E2E_DIR)/qlessd
test-e2e: $(E2E_BINS)
	$(E2E_RUN)
test-e2e-goroutines: E2E_MODE := --event-loop no
test-e2e-goroutines: $(E2E_BINS)
	$(E2E_RUN) -test.run '$(MODE_TESTS)'
test-e2e-two-loops: E2E_MODE := --event-loops 2 --io-uring no
test-e2e-two-loops: $(E2E_BINS)
	$(E2E_RUN) -test.run '$(MODE_TESTS)'
test-fuzz: fuzz

# The long runs: all of ./tests in each connection mode, the cluster's
# failover loop for 30 rounds, 200 SIGSTOP/SIGCONT pauses of cluster leaders
# and followers under load with every node's store compared key by key
# (QLESSD_CLUSTER_SEED=n replays a run), and each fuzzer for SOAK_FUZZTIME.
SOAK_FUZZTIME ?= 2000000x
soak:
	./tests/ensure-redis.sh
	$(GOTEST) -timeout 30m $(UNIT_PKGS)
	$(GOTEST) -timeout 60m ./tests
	QLESSD_ARGS="--event-loop no" $(GOTEST) -timeout 60m ./tests
	QLESSD_ARGS="--event-loops 2 --io-uring no" $(GOTEST) -timeout 60m ./tests
	QLESSD_CLUSTER_ROUNDS=30 $(GOTEST) -timeout 60m ./tests -run '^TestClusterFailover$$' -v
	QLESSD_CLUSTER_PAUSES=200 $(GOTEST) -timeout 120m ./tests -run '^TestClusterPausesKeepStoresEqual$$' -v
	$(MAKE) fuzz FUZZTIME=$(SOAK_FUZZTIME)

# The durability probes (tests/probe_*_test.go, build tag probes): SIGKILL
# under load, power cuts on an ext4 loop image, a full disk; each counts
# acknowledged writes and fails on one lost. The last two need root (loop
# devices, mount) and skip without it. A few minutes as set; longer with
# QLESSD_PROBE_KILL_ROUNDS, _POWERCUT_ROUNDS, _FULLDISK_ROUNDS, _CLIENTS,
# and QLESSD_PROBE_SEED to replay a run, PROBE_TIMEOUT for long runs
# (docs/storage.md, Durability probes).
PROBE_TIMEOUT ?= 60m
probe: $(E2E_DIR)/qlessd
	cd tests && QLESSD_BIN=$(CURDIR)/$(E2E_DIR)/qlessd QLESSD_ARGS="$(QLESSD_ARGS)" \
		$(GO) test -tags probes -count=1 -timeout $(PROBE_TIMEOUT) -run '^TestProbe' -v $(TESTFLAGS) .

# staticcheck, when missing, from the Go module proxy.
$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Each fuzz test for FUZZTIME, with one worker each, FUZZ_P of them at a
# time (go test fuzzes one target per run; in a fresh clone most of a short
# run is building each package's instrumented test binary, and on a busy
# machine more processes get more of the cores): the six, FUZZ_P=1 against
# 3, side by side with builds cached, 107 s against 71 at load 15-20, 55
# against 50 at load 7. Each target's output is printed whole when it ends. The seed corpora in testdata/fuzz run with
# every plain go test too. A count, not a duration: with a duration Go
# 1.26's coordinator can fail a target with "context deadline exceeded" as
# time runs out (golang/go#75804). `make fuzz FUZZTIME=2000000x` for a
# longer search (FUZZ_P=1 to run one at a time); a crash one finds fails
# the run and is kept in its package's testdata/fuzz.
FUZZTIME ?= 20000x
FUZZ_P ?= 3
FUZZ_TARGETS := ./store:FuzzJournalLoad ./server:FuzzRequest ./server:FuzzInline \
	./scripts/luacjson:FuzzDecode ./scripts/luacmsgpack:FuzzUnpack ./qless:FuzzQlessArgs
fuzz:
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(FUZZ_P) -I{} sh -c 't={}; \
		out=$$($(GO) test -run "^$$" -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s -parallel 1 "$${t%%:*}" 2>&1); \
		rc=$$?; printf "fuzz %s\n%s\n" "$$t" "$$out"; [ $$rc = 0 ] || { echo "fuzz FAILED: $$t"; exit 1; }' \
		|| { echo "fuzz FAILED (each failed target is named above)"; exit 1; }

# First the client view (each binding's qless.lua and QLESS beside Redis,
# put, pop1, heartbeat at concurrency 1 and 50, three rounds; ARGS=
# "-client-rounds 0" skips it), then qlessd against Redis (docs/performance.md),
# then qlessd alone against a 3-node cluster (put, pop1 at concurrency 50;
# ARGS="-cluster 0" skips that), then what TLS costs each server (five
# rounds; ARGS="-tls-only" runs only that).
bench: build
	./tests/ensure-redis.sh
	$(GO) run ./tests/bench -cluster 3 -tls -restart-jobs 1000000 $(ARGS)

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
