package scripts

import (
	"runtime"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// The memory ceiling's checks come from the built-ins and every tickEvery
// instructions, but one instruction can take a lot: gopher-lua fills an
// array with nils up to any integer key below lua.MaxArrayIndex, so
// t[2^26 - 1] = 1 took a gigabyte, and a loop of such assignments runs many
// times before the next tick. A large allocation makes Go collect garbage,
// though, and after every collection each script with a ceiling is asked
// to measure at its next instruction.

// maxArrayIndex bounds what one such assignment takes: 16M slots, 256 MB,
// the default ceiling. Integer keys from there on go to the table's hash
// part, where # and ipairs do not see them (arrays that long take more than
// the default ceiling anyway).
const maxArrayIndex = 1 << 24

func init() {
	lua.MaxArrayIndex = maxArrayIndex
	watchCollections()
}

// watched holds the switches of the scripts running with a ceiling.
var watched = struct {
	sync.Mutex
	switches map[*killSwitch]struct{}
}{switches: map[*killSwitch]struct{}{}}

func watch(k *killSwitch) {
	watched.Lock()
	watched.switches[k] = struct{}{}
	watched.Unlock()
}

func unwatch(k *killSwitch) {
	watched.Lock()
	delete(watched.switches, k)
	watched.Unlock()
}

// collectionSentinel becomes garbage as soon as it is made, so its
// finalizer runs after the next collection; it then makes the next one.
type collectionSentinel struct{ _ *byte }

func watchCollections() {
	runtime.SetFinalizer(new(collectionSentinel), func(*collectionSentinel) {
		watched.Lock()
		for k := range watched.switches {
			k.flags.Or(flagPrompted)
		}
		watched.Unlock()
		watchCollections()
	})
}
