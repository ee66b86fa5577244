package server

import "testing"

// Unset limits take Redis's defaults, in cfg too; set ones are kept; a
// command passes client-query-buffer-limit only beyond it.
func TestRequestLimits(t *testing.T) {
	var l requestLimits
	var cfg Config
	l.init(&cfg)
	if cfg.ProtoMaxBulkLen != defaultMaxBulk || cfg.ClientQueryBufferLimit != defaultMaxQuery {
		t.Fatalf("cfg after init: %d, %d; want Redis's defaults", cfg.ProtoMaxBulkLen, cfg.ClientQueryBufferLimit)
	}
	if l.maxBulk.Load() != defaultMaxBulk || l.maxQuery.Load() != defaultMaxQuery {
		t.Fatalf("limits %d, %d; want Redis's defaults", l.maxBulk.Load(), l.maxQuery.Load())
	}
	cfg = Config{ProtoMaxBulkLen: 1 << 20, ClientQueryBufferLimit: 100}
	l.init(&cfg)
	if l.maxBulk.Load() != 1<<20 || l.maxQuery.Load() != 100 {
		t.Fatalf("limits %d, %d; want the configured 1048576, 100", l.maxBulk.Load(), l.maxQuery.Load())
	}
	if l.overQuery(60, 40) {
		t.Error("exactly at the limit counted as over it")
	}
	if !l.overQuery(60, 41) {
		t.Error("one byte past the limit not counted")
	}
	l.maxQuery.Store(1 << 30) // as CONFIG SET stores it
	if l.overQuery(60, 41) {
		t.Error("a raised limit not seen")
	}
}
