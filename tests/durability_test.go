package tests

import (
	"context"
	encbinary "encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// With appendfsync always, a write is acknowledged only once it is on disk:
// SIGKILL right after the last reply must lose nothing.
func TestRestartAfterKillLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir, "--appendfsync", "always")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	var wg sync.WaitGroup
	const writers, perWriter = 8, 150
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if err := rdb.Set(ctx, fmt.Sprintf("k:%d:%d", w, i), i, 0).Err(); err != nil {
					t.Errorf("set: %v", err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if err := rdb.Set(ctx, "ttl-key", "v", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.Close()
	q.Kill()

	q2 := StartQlessd(t, dir, "--appendfsync", "always")
	rdb2 := redis.NewClient(&redis.Options{Addr: q2.Addr})
	defer rdb2.Close()
	n, err := rdb2.DBSize(ctx).Result()
	if err != nil || n != writers*perWriter+1 {
		t.Fatalf("after restart dbsize = %d, %v; want %d", n, err, writers*perWriter+1)
	}
	for w := 0; w < writers; w++ {
		v, err := rdb2.Get(ctx, fmt.Sprintf("k:%d:%d", w, perWriter-1)).Result()
		if err != nil || v != fmt.Sprint(perWriter-1) {
			t.Fatalf("writer %d last key = %q, %v", w, v, err)
		}
	}
	ttl, err := rdb2.PTTL(ctx, "ttl-key").Result()
	if err != nil || ttl <= 0 || ttl > time.Hour {
		t.Fatalf("ttl after restart = %v, %v", ttl, err)
	}
}

func TestDamagedTailIsRepairedWithLogLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	if err := rdb.Set(ctx, "kept", "yes", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.Close()
	q.Stop()
	f, err := os.OpenFile(filepath.Join(dir, "qlessd.db"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A crash in the middle of a write leaves the start of a frame.
	f.Write(frame("*3\r\n$3\r\nset\r\n$4\r\nhalf\r\n$1\r\nx\r\n")[:21])
	f.Close()

	q2 := StartQlessd(t, dir)
	rdb2 := redis.NewClient(&redis.Options{Addr: q2.Addr})
	defer rdb2.Close()
	if v, err := rdb2.Get(ctx, "kept").Result(); err != nil || v != "yes" {
		t.Fatalf("kept = %q, %v", v, err)
	}
	if out := q2.Output(); !strings.Contains(out, "dropped an incomplete last write") || !strings.Contains(out, "dropped_bytes=21") {
		t.Fatalf("no log line about the dropped tail:\n%s", out)
	}
}

// frame is records as the data file held them before frames were linked
// (store/frame.go): a header with the body's length and CRC-32C, and the
// header's own CRC-32C.
func frame(records string) []byte {
	crc := func(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }
	b := []byte{'#'}
	b = encbinary.LittleEndian.AppendUint32(b, uint32(len(records)))
	b = encbinary.LittleEndian.AppendUint32(b, crc([]byte(records)))
	b = encbinary.LittleEndian.AppendUint32(b, crc(b))
	return append(b, records...)
}

func TestDamageInsideDataFileStopsStartup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir)
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	for i := 0; i < 10; i++ {
		rdb.Set(context.Background(), fmt.Sprint("k", i), i, 0)
	}
	rdb.Close()
	q.Stop()
	path := filepath.Join(dir, "qlessd.db")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] = '#'
	data[len(data)/2+1] = '#'
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "--port", fmt.Sprint(freePort(t)), "--dir", dir, "--http-addr", "")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("qlessd started on a damaged file:\n%s", out)
	}
	if !strings.Contains(string(out), "damaged") {
		t.Fatalf("start-up error does not say the file is damaged:\n%s", out)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(data) {
		t.Fatal("qlessd changed a damaged data file it refused to load")
	}
}

func TestGracefulStopOnSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := StartQlessd(t, dir, "--appendfsync", "no")
	rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
	if err := rdb.Set(context.Background(), "a", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.Close()
	q.Stop()
	if code := q.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, q.Output())
	}
	q2 := StartQlessd(t, dir)
	rdb2 := redis.NewClient(&redis.Options{Addr: q2.Addr})
	defer rdb2.Close()
	if v, _ := rdb2.Get(context.Background(), "a").Result(); v != "1" {
		t.Fatalf("a = %q after graceful stop with appendfsync no", v)
	}
}
