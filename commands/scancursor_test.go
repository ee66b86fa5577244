package commands

import (
	"fmt"
	"sort"
	"testing"
)

// walkSlice walks a sorted slice as the store walks keys.
func walkSlice(names *[]string) func(from string, fn func(string) bool) {
	return func(from string, fn func(string) bool) {
		i := sort.SearchStrings(*names, from)
		for ; i < len(*names); i++ {
			if !fn((*names)[i]) {
				return
			}
		}
	}
}

func all(string) bool { return true }

// forget empties the cursor table, as eviction or a restart would.
func forget() {
	cursors.mu.Lock()
	cursors.names = map[uint64]string{}
	for i := range cursors.ring {
		cursors.ring[i] = 0
	}
	cursors.mu.Unlock()
}

func TestScanPageCoversEverything(t *testing.T) {
	var names []string
	for i := 0; i < 300; i++ {
		names = append(names, fmt.Sprintf("key:%04d", i*7%300))
	}
	names = append(names, "", "a", "ab", "key", "key:", "z\xff\xff")
	sort.Strings(names)
	for _, evict := range []bool{false, true} {
		seen := map[string]bool{}
		cur := uint64(0)
		for calls := 0; ; calls++ {
			if calls > 1000 {
				t.Fatal("scan does not end")
			}
			page, next := ScanPage(cur, 7, walkSlice(&names), all)
			for _, n := range page {
				seen[n] = true
			}
			if next == 0 {
				break
			}
			if evict {
				forget() // resume from the 4-byte prefix alone
			}
			cur = next
		}
		if len(seen) != len(names) {
			t.Errorf("evict=%v: saw %d of %d names", evict, len(seen), len(names))
		}
	}
}

func TestScanPageUnderChange(t *testing.T) {
	var names []string
	stable := map[string]bool{}
	for i := 0; i < 200; i++ {
		n := fmt.Sprintf("s%03d", i)
		names = append(names, n)
		stable[n] = true
	}
	sort.Strings(names)
	seen := map[string]bool{}
	cur := uint64(0)
	for round := 0; ; round++ {
		if round > 1000 {
			t.Fatal("scan does not end")
		}
		page, next := ScanPage(cur, 5, walkSlice(&names), all)
		for _, n := range page {
			seen[n] = true
		}
		// Insert names everywhere, including just before the cursor.
		names = append(names, fmt.Sprintf("s%03dx", round), fmt.Sprintf("a%d", round), fmt.Sprintf("z%d", round))
		sort.Strings(names)
		if round%3 == 0 {
			forget()
		}
		if next == 0 {
			break
		}
		cur = next
	}
	for n := range stable {
		if !seen[n] {
			t.Errorf("missed %q", n)
		}
	}
}

func TestParseCursor(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "": 0, "+5": 5, "-1": 1<<64 - 1, "18446744073709551615": 1<<64 - 1, "-0": 0} {
		if got, ok := ParseCursor([]byte(in)); !ok || got != want {
			t.Errorf("ParseCursor(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{" 1", "1 ", "x", "-", "+", "18446744073709551616", "0x1", "1.0"} {
		if _, ok := ParseCursor([]byte(in)); ok {
			t.Errorf("ParseCursor(%q) accepted", in)
		}
	}
	// Any number resumes somewhere without failing.
	for _, c := range []uint64{1, 1<<64 - 1, 0xdeadbeef, 7 << 29} {
		ResumeCursor(c)
	}
}
