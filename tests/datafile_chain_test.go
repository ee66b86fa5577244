package tests

import (
	"context"
	encbinary "encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// chainedFrames returns where each frame of a data file of linked frames
// starts ('&', body length at bytes 1-4, a 17-byte header: store/frame.go),
// and the file's length last.
func chainedFrames(t *testing.T, data []byte) []int {
	t.Helper()
	var at []int
	for i := 0; i < len(data); {
		if data[i] != '&' || i+17 > len(data) {
			t.Fatalf("no frame at byte %d of %d", i, len(data))
		}
		at = append(at, i)
		i += 17 + int(encbinary.LittleEndian.Uint32(data[i+1:i+5]))
	}
	return append(at, len(data))
}

// A whole frame deleted, zeroed or swapped in the middle of the data file
// stops start-up with its offset; qlessd check says so, and --repair
// keeps the writes before it.
func TestFrameAlignedDamageStopsStartup(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"deleted", "zeroed", "swapped"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			q := StartQlessd(t, dir)
			ctx := context.Background()
			rdb := redis.NewClient(&redis.Options{Addr: q.Addr})
			const n = 300
			for i := range n {
				if err := rdb.Set(ctx, fmt.Sprint("k", i), i, 0).Err(); err != nil {
					t.Fatal(err)
				}
			}
			rdb.Close()
			q.Stop()
			path := filepath.Join(dir, "qlessd.db")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			at := chainedFrames(t, data)
			k := len(at) / 2
			frame := data[at[k]:at[k+1]]
			bad := map[string][]byte{
				"deleted": slices.Concat(data[:at[k]], data[at[k+1]:]),
				"zeroed":  slices.Concat(data[:at[k]], make([]byte, len(frame)), data[at[k+1]:]),
				"swapped": slices.Concat(data[:at[k]], data[at[k+1]:at[k+2]], frame, data[at[k+2]:]),
			}[how]
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("damaged at byte %d:", at[k])
			code, out := runQlessd(t, append([]string{"--port", strconv.Itoa(freePort(t)), "--dir", dir, "--http-addr", ""}, modeArgs()...)...)
			if code != 1 || !strings.Contains(out, where) {
				t.Fatalf("start-up on a file with a frame %s: exit %d, want 1 and %q:\n%s", how, code, where, out)
			}
			code, out = runQlessd(t, "check", "--dir", dir)
			if code != 1 || !strings.Contains(out, "state: "+where) || strings.Contains(out, "state: ok") {
				t.Fatalf("check: exit %d, want 1 and %q:\n%s", code, where, out)
			}
			if code, out = runQlessd(t, "check", "--dir", dir, "--repair"); code != 0 || !strings.Contains(out, "repaired") {
				t.Fatalf("check --repair: exit %d:\n%s", code, out)
			}
			q2 := StartQlessd(t, dir)
			rdb2 := redis.NewClient(&redis.Options{Addr: q2.Addr})
			defer rdb2.Close()
			keys, err := rdb2.DBSize(ctx).Result()
			if err != nil || keys == 0 || keys >= n {
				t.Fatalf("%d keys after repair (%v), want those before the damage", keys, err)
			}
			for i := range int(keys) {
				if v, err := rdb2.Get(ctx, fmt.Sprint("k", i)).Result(); err != nil || v != strconv.Itoa(i) {
					t.Fatalf("k%d = %q, %v after repair kept %d keys: not a prefix", i, v, err, keys)
				}
			}
		})
	}
}
