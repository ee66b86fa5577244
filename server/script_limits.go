package server

import (
	"sync/atomic"
	"time"
)

// scriptLimits are lua-time-limit and lua-max-memory as CONFIG GET shows
// them: cfg's, then CONFIG SET's. The engine enforces them; each change is
// passed on to it.
type scriptLimits struct {
	time   atomic.Int64 // a time.Duration
	memory atomic.Int64 // bytes
}

func (l *scriptLimits) init(cfg Config) {
	l.time.Store(int64(cfg.LuaTimeLimit))
	l.memory.Store(cfg.LuaMaxMemory)
}

func (l *scriptLimits) timeLimit() time.Duration { return time.Duration(l.time.Load()) }

func (l *scriptLimits) maxMemory() int64 { return l.memory.Load() }

// setTime makes d the limit and tells engine (nil: no scripts).
func (l *scriptLimits) setTime(d time.Duration, engine ScriptEngine) {
	l.time.Store(int64(d))
	if engine != nil {
		engine.SetTimeLimit(d)
	}
}

// setMemory makes n the limit and tells engine (nil: no scripts).
func (l *scriptLimits) setMemory(n int64, engine ScriptEngine) {
	l.memory.Store(n)
	if engine != nil {
		engine.SetMaxMemory(n)
	}
}
