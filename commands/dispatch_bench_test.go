package commands

import "testing"

// nopW discards replies.
type nopW struct{}

func (nopW) WriteError(string)      {}
func (nopW) WriteStatus(string)     {}
func (nopW) WriteBulk([]byte)       {}
func (nopW) WriteBulkString(string) {}
func (nopW) WriteInt(int64)         {}
func (nopW) WriteNull()             {}
func (nopW) WriteNullArray()        {}
func (nopW) WriteArray(int)         {}
func (nopW) WriteMap(int)           {}
func (nopW) WriteSet(int)           {}
func (nopW) WriteDouble(float64)    {}
func (nopW) WriteBool(bool)         {}
func (nopW) WriteVerbatim(string)   {}
func (nopW) WritePairs(int)         {}
func (nopW) WritePair()             {}
func (nopW) WritePush(int)          {}
func (nopW) WriteBigNumber(string)  {}

func (nopW) WriteVerbatimExt(string, string) {}

// BenchmarkDispatchPing measures what Dispatch adds to a command: timing,
// counting and the observer (with none set), against calling it directly.
func BenchmarkDispatchPing(b *testing.B) {
	t := Default()
	cmd := t.Lookup([]byte("ping"))
	args := [][]byte{[]byte("ping")}
	c := &Ctx{W: nopW{}, Table: t}
	b.Run("dispatch", func(b *testing.B) {
		for b.Loop() {
			t.Dispatch(c, cmd, args)
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd.Run(c, args)
		}
	})
}
