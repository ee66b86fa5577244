package cronsched

import "testing"

func TestParseKeepsSchedulesBounded(t *testing.T) {
	a, err := Parse("*/15 9-17 * * MON-FRI", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("*/15 9-17 * * MON-FRI", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if a.spec != b.spec {
		t.Fatal("the second Parse of one expression parsed it again")
	}
	if _, err := Parse("*/15 9-17 * * MON-FRI", "Nowhere/Special"); err == nil {
		t.Fatal("an unknown timezone was accepted once the expression was kept")
	}
	for i := 0; i < memoLimit+10; i++ {
		if _, err := Parse("0 0 1 1 *", "Etc/GMT+"+string(rune('0'+i%10))); err != nil {
			t.Fatal(err)
		}
		parsed.put(string(rune(i)), "UTC", a)
	}
	if n := len(parsed.m); n > memoLimit {
		t.Fatalf("%d schedules kept, limit %d", n, memoLimit)
	}
}

func BenchmarkParseKept(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("*/15 9-17 * * MON-FRI", "Europe/Berlin"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseFresh(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := parse("*/15 9-17 * * MON-FRI", "Europe/Berlin"); err != nil {
			b.Fatal(err)
		}
	}
}
