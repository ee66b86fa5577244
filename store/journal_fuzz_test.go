package store

import (
	"bytes"
	"testing"
)

// FuzzJournalLoad reads arbitrary bytes as a data file. Reading never
// panics; it either finds the file whole, or ending in an incomplete last
// write, or damaged at an offset; and the bytes it calls good read back
// clean, giving a prefix of the records it found (all of them, when the
// file was not damaged). The seed corpus in testdata/fuzz holds files
// written by the store, with and without checksums, cut and damaged.
//
// make test runs it for ten seconds; longer: go test ./store -run '^$'
// -fuzz FuzzJournalLoad -fuzztime 10m -parallel 1.
func FuzzJournalLoad(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, recs := scanBytes(t, data)
		size := int64(len(data))
		switch {
		case rep.Size != size || rep.Good < 0 || rep.Good > size:
			t.Fatalf("report %+v for %d bytes", rep, size)
		case rep.Torn != 0 && rep.Good+rep.Torn != size:
			t.Fatalf("torn end %d bytes after %d of %d", rep.Torn, rep.Good, size)
		case rep.Damage != nil && (rep.Torn != 0 || rep.Damage.At < rep.Good || rep.Damage.At >= size):
			t.Fatalf("damage %+v, good %d, torn %d, of %d bytes", *rep.Damage, rep.Good, rep.Torn, size)
		case rep.Damage == nil && rep.Torn == 0 && rep.Good != size:
			t.Fatalf("a whole file of %d bytes with %d good", size, rep.Good)
		}
		again, prefix := scanBytes(t, data[:rep.Good])
		if again.Damage != nil || again.Torn != 0 || again.Good != rep.Good {
			t.Fatalf("the %d good bytes read back as %+v", rep.Good, again)
		}
		if len(prefix) > len(recs) || rep.Damage == nil && len(prefix) != len(recs) {
			t.Fatalf("the good bytes hold %d records, the file %d", len(prefix), len(recs))
		}
		for i := range prefix {
			if prefix[i] != recs[i] {
				t.Fatalf("record %d of the good bytes is %+v, of the file %+v", i, prefix[i], recs[i])
			}
		}
	})
}

// scanBytes reads data as a data file and returns the report and the
// records it passed on.
func scanBytes(t *testing.T, data []byte) (JournalReport, []record) {
	var recs []record
	rep, err := scanJournal(bytes.NewReader(data), int64(len(data)), func(r record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("reading from memory failed: %v", err)
	}
	return rep, recs
}
