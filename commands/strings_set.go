package commands

import "math"

// Options of SET and GETEX, as Redis 7.0's parseExtendedStringArguments
// accepts them.
const (
	optNX = 1 << iota
	optXX
	optGET
	optKeepTTL
	optPersist
	optEX
	optPX
	optEXAT
	optPXAT
)

const optExpires = optEX | optPX | optEXAT | optPXAT

// parseStringOptions reads the options of SET (getex false) or GETEX and
// returns them with the expiry argument, if any.
func parseStringOptions(c *Ctx, args [][]byte, getex bool) (flags int, expire []byte, ok bool) {
	set := !getex
	expiryWords := []struct {
		word string
		flag int
	}{{"ex", optEX}, {"px", optPX}, {"exat", optEXAT}, {"pxat", optPXAT}}
next:
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case EqualFold(a, "nx") && flags&optXX == 0 && set:
			flags |= optNX
			continue
		case EqualFold(a, "xx") && flags&optNX == 0 && set:
			flags |= optXX
			continue
		case EqualFold(a, "get") && set:
			flags |= optGET
			continue
		case EqualFold(a, "keepttl") && flags&(optPersist|optExpires) == 0 && set:
			flags |= optKeepTTL
			continue
		case EqualFold(a, "persist") && getex && flags&(optExpires|optKeepTTL) == 0:
			flags |= optPersist
			continue
		}
		// An expiry option excludes the other expiry options, KEEPTTL and
		// PERSIST, but may repeat itself (the last value wins).
		for _, e := range expiryWords {
			if EqualFold(a, e.word) && j+1 < len(args) &&
				flags&(optKeepTTL|optPersist) == 0 && flags&(optExpires&^e.flag) == 0 {
				flags |= e.flag
				j++
				expire = args[j]
				continue next
			}
		}
		c.Error(ErrSyntax)
		return 0, nil, false
	}
	return flags, expire, true
}

// expireAtMillis turns an expiry argument into a unix-ms deadline as
// Redis's getExpireMillisecondsOrReply, replying on error.
func expireAtMillis(c *Ctx, arg []byte, flags int) (int64, bool) {
	ms, ok := ParseInt(arg)
	if !ok {
		c.Error(ErrNotInt)
		return 0, false
	}
	seconds := flags&(optEX|optEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		c.Error(Errorf(ErrInvalidExpire, c.Name))
		return 0, false
	}
	if seconds {
		ms *= 1000
	}
	if flags&(optEX|optPX) != 0 {
		ms += c.Tx.Now() // wraps negative on overflow, caught below as in C
	}
	if ms <= 0 {
		c.Error(Errorf(ErrInvalidExpire, c.Name))
		return 0, false
	}
	return ms, true
}

func cmdSet(c *Ctx, args [][]byte) {
	flags, expire, ok := parseStringOptions(c, args[3:], false)
	if ok {
		setGeneric(c, flags, args[1], args[2], expire, nil, nil)
	}
}

func cmdSetNX(c *Ctx, args [][]byte) {
	setGeneric(c, optNX, args[1], args[2], nil, int64Reply(1), int64Reply(0))
}

// cmdSetEx serves SETEX and PSETEX.
func cmdSetEx(c *Ctx, args [][]byte) {
	flags := optEX
	if c.Name == "psetex" {
		flags = optPX
	}
	setGeneric(c, flags, args[1], args[3], args[2], nil, nil)
}

func int64Reply(n int64) func(*Ctx) { return func(c *Ctx) { c.W.WriteInt(n) } }

// setGeneric is the common path of SET and its relatives: okReply and
// abortReply replace +OK and the null reply when not nil.
func setGeneric(c *Ctx, flags int, key, val, expire []byte, okReply, abortReply func(*Ctx)) {
	var at int64
	if expire != nil {
		var ok bool
		if at, ok = expireAtMillis(c, expire, flags); !ok {
			return
		}
	}
	var old string
	var found bool
	if flags&optGET != 0 {
		var done bool
		if old, found, done = getString(c, key); done {
			return
		}
	} else {
		found = c.Tx.Exists(string(key))
	}
	if (flags&optNX != 0 && found) || (flags&optXX != 0 && !found) {
		switch {
		case flags&optGET != 0:
			writeOptString(c, old, found)
		case abortReply != nil:
			abortReply(c)
		default:
			c.W.WriteNull()
		}
		return
	}
	if room := c.TakeRoom(val); room != nil {
		// The value is in a buffer of its own that nothing writes to
		// again: the store keeps it, uncopied (store.Room).
		c.Tx.SetStringRoom(string(key), room, at, flags&optKeepTTL != 0)
	} else {
		c.Tx.SetString(string(key), KeepArg(val), at, flags&optKeepTTL != 0)
	}
	switch {
	case flags&optGET != 0:
		writeOptString(c, old, found)
	case okReply != nil:
		okReply(c)
	default:
		c.OK()
	}
}

// cmdGetEx is GETEX key [EX s | PX ms | EXAT ts | PXAT ts | PERSIST].
func cmdGetEx(c *Ctx, args [][]byte) {
	flags, expire, ok := parseStringOptions(c, args[2:], true)
	if !ok {
		return
	}
	key := string(args[1])
	v, exists, done := getString(c, args[1])
	if done {
		return
	}
	if !exists {
		c.W.WriteNull()
		return
	}
	var at int64
	if expire != nil {
		if at, ok = expireAtMillis(c, expire, flags); !ok {
			return
		}
	}
	c.W.WriteBulkString(v)
	switch {
	case expire != nil && at <= c.Tx.Now():
		c.Tx.Delete(key)
	case expire != nil:
		c.Tx.SetExpireAt(key, at)
	case flags&optPersist != 0:
		if cur, _ := c.Tx.ExpireAt(key); cur != 0 {
			c.Tx.SetExpireAt(key, 0)
		}
	}
}
