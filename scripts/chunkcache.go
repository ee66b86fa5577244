package scripts

import lua "github.com/yuin/gopher-lua"

// cachedChunk is what a script's factory (prefix.go) built in one state:
// the per-call function and a snapshot of every table the cached
// statements made, which restoreChunk puts back after each call.
type cachedChunk struct {
	fn    *lua.LFunction // nil: the factory failed here; run the chunk whole
	snaps []tableSnap
}

// maxCachedChunks bounds the scripts one state keeps factory results for.
const maxCachedChunks = 64

// chunkFunction returns the per-call function of a script with a factory,
// running the factory on the state's first call of it; nil means run the
// whole chunk.
func (s *state) chunkFunction(sc *script) *lua.LFunction {
	if sc.factory == nil {
		return nil
	}
	c, ok := s.chunks[sc]
	if !ok {
		if s.chunks == nil || len(s.chunks) >= maxCachedChunks {
			s.chunks = map[*script]*cachedChunk{}
		}
		c = s.runFactory(sc.factory)
		s.chunks[sc] = c
	}
	if c.fn == nil {
		return nil
	}
	s.activeChunk = c
	return c.fn
}

func (s *state) runFactory(proto *lua.FunctionProto) *cachedChunk {
	L := s.L
	top := L.GetTop()
	defer L.SetTop(top)
	f := L.NewFunctionFromProto(proto)
	f.Env = s.proxy
	L.Push(f)
	if err := L.PCall(0, 1, nil); err != nil {
		return &cachedChunk{}
	}
	fn, ok := L.Get(-1).(*lua.LFunction)
	if !ok {
		return &cachedChunk{}
	}
	c := &cachedChunk{fn: fn}
	seenT := map[*lua.LTable]bool{}
	seenF := map[*lua.LFunction]bool{}
	var fromValue func(v lua.LValue)
	fromValue = func(v lua.LValue) {
		switch x := v.(type) {
		case *lua.LTable:
			if seenT[x] {
				return
			}
			seenT[x] = true
			snap := tableSnap{t: x, last: lua.LNil, mt: x.Metatable, ownMT: true}
			var values []lua.LValue
			for k, v := x.Next(lua.LNil); k != lua.LNil; k, v = x.Next(k) {
				snap.last = k
				if ks, ok := k.(lua.LString); ok {
					snap.keys = append(snap.keys, string(ks))
					snap.vals = append(snap.vals, v)
				}
				values = append(values, v)
			}
			c.snaps = append(c.snaps, snap)
			for _, v := range values {
				fromValue(v)
			}
		case *lua.LFunction:
			if x.IsG || seenF[x] {
				return
			}
			seenF[x] = true
			for _, uv := range x.Upvalues {
				if uv != nil {
					fromValue(uv.Value())
				}
			}
		}
	}
	fromValue(fn)
	return c
}

// restoreChunk undoes what the call just made changed in its cached
// tables; a chunk whose tables collected too many keys is built afresh
// next time.
func (s *state) restoreChunk() {
	c := s.activeChunk
	if c == nil {
		return
	}
	s.activeChunk = nil
	if !s.restoreSnaps(c.snaps) {
		for sc, cc := range s.chunks {
			if cc == c {
				delete(s.chunks, sc)
			}
		}
	}
}
