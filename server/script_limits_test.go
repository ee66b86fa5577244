package server

import (
	"testing"
	"time"
)

// The limits start from cfg and follow each CONFIG SET; with no script
// engine there is no one else to tell. (Passing a change on to the engine
// is TestScriptingPastLimitServesOthers's and TestScriptingMemoryCeiling's.)
func TestScriptLimits(t *testing.T) {
	var l scriptLimits
	l.init(Config{LuaTimeLimit: 5 * time.Second, LuaMaxMemory: 1 << 20})
	if l.timeLimit() != 5*time.Second || l.maxMemory() != 1<<20 {
		t.Fatalf("from cfg: %v, %d; want 5s, 1048576", l.timeLimit(), l.maxMemory())
	}
	l.setTime(250*time.Millisecond, nil)
	l.setMemory(0, nil)
	if l.timeLimit() != 250*time.Millisecond || l.maxMemory() != 0 {
		t.Fatalf("after the sets: %v, %d; want 250ms, 0", l.timeLimit(), l.maxMemory())
	}
}
