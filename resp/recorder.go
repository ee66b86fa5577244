package resp

// Recorder is a Writer that builds a Value. It accepts one top-level reply;
// nested arrays are completed as their announced elements arrive.
type Recorder struct {
	root  Value
	done  bool
	stack []frame
}

type frame struct {
	v    *Value
	left int
}

// Reset prepares the recorder for a new reply, keeping its buffers.
func (r *Recorder) Reset() {
	r.root = Value{}
	r.done = false
	r.stack = r.stack[:0]
}

// Value returns the recorded reply. It is only complete once the handler has
// written every announced array element.
func (r *Recorder) Value() Value { return r.root }

// Written reports whether a complete top-level reply was recorded.
func (r *Recorder) Written() bool { return r.done }

func (r *Recorder) put(v Value) {
	if len(r.stack) == 0 {
		r.root = v
		r.done = !v.aggregate() || len(v.Array) == 0
		if v.aggregate() && len(v.Array) > 0 {
			r.stack = append(r.stack, frame{v: &r.root, left: len(v.Array)})
		}
		return
	}
	top := &r.stack[len(r.stack)-1]
	idx := len(top.v.Array) - top.left
	top.v.Array[idx] = v
	top.left--
	slot := &top.v.Array[idx]
	for len(r.stack) > 0 && r.stack[len(r.stack)-1].left == 0 {
		r.stack = r.stack[:len(r.stack)-1]
	}
	if v.aggregate() && len(v.Array) > 0 {
		r.stack = append(r.stack, frame{v: slot, left: len(v.Array)})
	}
	if len(r.stack) == 0 {
		r.done = true
	}
}

func (r *Recorder) WriteError(msg string)    { r.put(Value{Kind: Error, Str: msg}) }
func (r *Recorder) WriteStatus(s string)     { r.put(Value{Kind: Status, Str: s}) }
func (r *Recorder) WriteBulk(b []byte)       { r.put(Value{Kind: Bulk, Str: string(b)}) }
func (r *Recorder) WriteBulkString(s string) { r.put(Value{Kind: Bulk, Str: s}) }
func (r *Recorder) WriteInt(n int64)         { r.put(Value{Kind: Int, Int: n}) }
func (r *Recorder) WriteNull()               { r.put(Value{Kind: Null}) }
func (r *Recorder) WriteNullArray()          { r.put(Value{Kind: NullArray}) }
func (r *Recorder) WriteArray(n int) {
	if n < 0 {
		r.put(Value{Kind: NullArray})
		return
	}
	r.put(Value{Kind: Array, Array: make([]Value, n)})
}
func (r *Recorder) WriteMap(n int) { r.put(Value{Kind: Map, Array: make([]Value, 2*n)}) }
func (r *Recorder) WriteSet(n int) { r.put(Value{Kind: Set, Array: make([]Value, n)}) }
func (r *Recorder) WriteDouble(f float64) {
	r.put(Value{Kind: Double, Str: FormatDouble(f), Float: f})
}
func (r *Recorder) WriteBool(b bool) {
	v := Value{Kind: Bool}
	if b {
		v.Int = 1
	}
	r.put(v)
}
func (r *Recorder) WriteVerbatim(s string) { r.put(Value{Kind: Verbatim, Str: s}) }
func (r *Recorder) WriteVerbatimExt(ext, s string) {
	r.put(Value{Kind: Verbatim, Str: s, Ext: ext})
}
func (r *Recorder) WriteBigNumber(s string) { r.put(Value{Kind: BigNum, Str: s}) }
func (r *Recorder) WritePairs(n int)        { r.put(Value{Kind: Pairs, Array: make([]Value, 2*n)}) }

// WritePush records an array: recorded replies are never pushed.
func (r *Recorder) WritePush(n int) { r.WriteArray(n) }

// WritePair records nothing: a Pairs value holds its elements flat.
func (r *Recorder) WritePair() {}
