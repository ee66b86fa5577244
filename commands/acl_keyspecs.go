package commands

// aclKeySpec is one of a Redis 7.0 command's key specs (COMMAND INFO's
// key_specs, tabled in redisKeySpecs): where its keys are in a call, and
// what the command does to them, which %R~ and %W~ patterns are checked
// against key by key.
type aclKeySpec struct {
	read, write bool // ACCESS; INSERT, DELETE or UPDATE
	notKey      bool // NOT_KEY: an argument that is not a key
	incomplete  bool // INCOMPLETE: the spec may miss keys
	variable    bool // VARIABLE_FLAGS: what is done depends on the call
	unknown     bool // a search type Redis does not describe

	// The search begins at index begin, or after keyword searched from
	// begin (backwards from the end when negative).
	keyword string
	begin   int
	// Then keys are a range (last: the last key relative to the start,
	// or from the end when negative; limit divides the rest), or a count
	// at numAt from the start, the keys first after it.
	keynum            bool
	last, step, limit int
	numAt, first      int
}

// aclCallKeys returns a call's keys and what the call does to each, as
// Redis 7.0's ACL finds them: by the command's key specs when they are
// complete and their flags fixed, else as the command's own key finder
// tells (SET, BITFIELD; qlessd has not SORT nor MIGRATE), else by the table's positions with the
// command's flags as a whole (qlessd's own commands).
func aclCallKeys(e *aclEntry, cmd *Cmd, args [][]byte) []keyRef {
	specs := redisKeySpecs[e.name]
	if usableSpecs(specs) {
		if refs, ok := keysBySpecs(specs, args); ok {
			return refs
		}
		if refs, ok := keysByCount(specs, args); ok {
			return refs
		}
	}
	switch e.name {
	case "bitfield":
		return []keyRef{{pos: 1, read: true, write: !bitfieldReadOnly(args)}}
	}
	return callKeyRefs(cmd, e.keys, args)
}

// usableSpecs: some spec names keys, and none has variable flags.
func usableSpecs(specs []aclKeySpec) bool {
	keys := false
	for _, s := range specs {
		if s.variable {
			return false
		}
		keys = keys || !s.notKey
	}
	return keys
}

// keysBySpecs walks the specs over a call; false when they cannot tell
// (an incomplete spec or one of unknown type, a count that is not one,
// positions past the call), where Redis turns to the command's finder.
func keysBySpecs(specs []aclKeySpec, args [][]byte) ([]keyRef, bool) {
	var out []keyRef
	n := len(args)
	for _, s := range specs {
		if s.notKey {
			continue
		}
		if s.unknown || s.incomplete {
			return nil, false
		}
		first := s.begin
		if s.keyword != "" {
			if first = keywordEnd(s, args); first == 0 {
				continue // no keyword: no keys of this spec
			}
		}
		var last int
		switch {
		case s.keynum:
			if first+s.numAt >= n {
				return nil, false
			}
			count, ok := ParseInt(args[first+s.numAt])
			if !ok || count < 0 {
				return nil, false
			}
			first += s.first
			last = first + int(count) - 1
		case s.last >= 0:
			last = first + s.last
		case s.limit == 0:
			last = n + s.last
		default:
			last = first + (n-first)/s.limit + s.last
		}
		if last >= n || last < first || first >= n {
			return nil, false
		}
		for i := first; i <= last; i += max(s.step, 1) {
			out = append(out, keyRef{pos: i, read: s.read, write: s.write})
		}
	}
	return out, true
}

// keywordEnd is the index after a spec's keyword in a call, searched
// forwards from begin or backwards from the end; 0 when absent.
func keywordEnd(s aclKeySpec, args [][]byte) int {
	n := len(args)
	if s.begin > 0 {
		for i := s.begin; i < n-1; i++ {
			if EqualFold(args[i], s.keyword) {
				return i + 1
			}
		}
		return 0
	}
	for i := n + s.begin; i > 1 && i < n; i-- {
		if EqualFold(args[i], s.keyword) {
			return i + 1
		}
	}
	return 0
}

// bitfieldReadOnly: only GET (and OVERFLOW) operations, as Redis's
// BITFIELD key finder tells; anything else, a syntax error included,
// writes.
func bitfieldReadOnly(args [][]byte) bool {
	for i := 2; i < len(args); i++ {
		rest := len(args) - i - 1
		switch {
		case EqualFold(args[i], "get") && rest >= 2:
			i += 2
		case EqualFold(args[i], "overflow") && rest >= 1:
			i++
		default:
			return false
		}
	}
	return true
}

// keysByCount is what Redis's own key finders give, when the specs
// cannot tell, for the commands whose keys follow a count (EVAL, FCALL,
// ZUNIONSTORE, LMPOP, SINTERCARD, ...): the count read as C's atoi reads
// it, no keys unless it is at least 1 and no more than the arguments
// after it, else those keys and the destination, with no flags (so any
// pattern matches them). False for the commands without a count.
func keysByCount(specs []aclKeySpec, args [][]byte) ([]keyRef, bool) {
	var count *aclKeySpec
	store := 0
	for i := range specs {
		s := &specs[i]
		switch {
		case s.keynum:
			count = s
		case s.keyword == "" && s.last == 0 && !s.notKey:
			store = s.begin
		}
	}
	if count == nil {
		return nil, false
	}
	at, first := count.begin+count.numAt, count.begin+count.first
	if at >= len(args) {
		return nil, true
	}
	n := atoi(args[at])
	if n < 1 || n > int64(len(args)-first) {
		return nil, true
	}
	var out []keyRef
	for i := 0; i < int(n); i++ {
		out = append(out, keyRef{pos: first + i})
	}
	if store > 0 {
		out = append(out, keyRef{pos: store})
	}
	return out, true
}

// atoi reads a number as C's atoi: blanks, a sign, then digits up to
// the first other byte ("2x" is 2, "x" is 0).
func atoi(b []byte) int64 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && n < 1<<40; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}
