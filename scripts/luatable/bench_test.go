package luatable_test

import (
	"fmt"
	"testing"

	"github.com/qlessd/qlessd/scripts/luatable"
)

var benchKeys = []string{"jid", "klass", "state", "queue", "worker", "tracked", "priority", "expires", "retries",
	"remaining", "data", "tags", "history", "failure", "spawned_from_jid", "dependents", "dependencies",
	"throttles", "when", "what"}

func BenchmarkOrder(b *testing.B) {
	for _, n := range []int{5, 10, 20} {
		keys := benchKeys[:n]
		dst := make([]int, 0, n)
		b.Run(fmt.Sprintf("keys=%d/hint=0", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				dst = luatable.Order(0, keys, dst[:0])
			}
		})
		b.Run(fmt.Sprintf("keys=%d/constructor", n), func(b *testing.B) {
			hint := luatable.ConstructorHint(n)
			b.ReportAllocs()
			for b.Loop() {
				dst = luatable.Order(hint, keys, dst[:0])
			}
		})
		b.Run(fmt.Sprintf("keys=%d/own-table", n), func(b *testing.B) {
			var tab luatable.Table
			b.ReportAllocs()
			for b.Loop() {
				dst = tab.Order(0, keys, dst[:0])
			}
		})
	}
}

func TestOrderDoesNotAllocate(t *testing.T) {
	dst := make([]int, 0, len(benchKeys))
	var tab luatable.Table
	for _, n := range []int{1, 5, 20} {
		keys := benchKeys[:n]
		if a := testing.AllocsPerRun(100, func() { dst = luatable.Order(0, keys, dst[:0]) }); a != 0 {
			t.Errorf("Order of %d keys: %v allocations", n, a)
		}
		if a := testing.AllocsPerRun(100, func() { dst = tab.Order(0, keys, dst[:0]) }); a != 0 {
			t.Errorf("Table.Order of %d keys: %v allocations", n, a)
		}
	}
}
