package commands

import "math"

func registerExpire(t *Table) {
	for _, name := range []string{"expire", "pexpire", "expireat", "pexpireat"} {
		t.Add(&Cmd{Name: name, Arity: -3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdExpire})
	}
	for _, name := range []string{"ttl", "pttl", "expiretime", "pexpiretime"} {
		t.Add(&Cmd{Name: name, Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdTTL})
	}
	t.Add(&Cmd{Name: "persist", Arity: 2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, Run: cmdPersist})
}

// Conditions of EXPIRE and its relatives (Redis 7.0).
const (
	expNX = 1 << iota
	expXX
	expGT
	expLT
)

func parseExpireFlags(c *Ctx, args [][]byte) (int, bool) {
	flags := 0
	for _, a := range args {
		switch {
		case EqualFold(a, "nx"):
			flags |= expNX
		case EqualFold(a, "xx"):
			flags |= expXX
		case EqualFold(a, "gt"):
			flags |= expGT
		case EqualFold(a, "lt"):
			flags |= expLT
		default:
			c.Error(Errorf(ErrUnsupportedOption, a))
			return 0, false
		}
	}
	if flags&expNX != 0 && flags&(expXX|expGT|expLT) != 0 {
		c.Error(ErrExpireNXCombo)
		return 0, false
	}
	if flags&expGT != 0 && flags&expLT != 0 {
		c.Error(ErrExpireGTLT)
		return 0, false
	}
	return flags, true
}

// cmdExpire serves EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT.
func cmdExpire(c *Ctx, args [][]byte) {
	flags, ok := parseExpireFlags(c, args[3:])
	if !ok {
		return
	}
	when, ok := ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	seconds := c.Name == "expire" || c.Name == "expireat"
	relative := c.Name == "expire" || c.Name == "pexpire"
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.Error(Errorf(ErrInvalidExpire, c.Name))
			return
		}
		when *= 1000
	}
	if relative {
		if when > math.MaxInt64-c.Tx.Now() {
			c.Error(Errorf(ErrInvalidExpire, c.Name))
			return
		}
		when += c.Tx.Now()
	}
	key := c.Tx.KeyString(args[1])
	cur, exists := c.Tx.ExpireAt(key)
	if !exists {
		c.W.WriteInt(0)
		return
	}
	if flags != 0 {
		// A key without a deadline counts as expiring never (infinitely late).
		hasTTL := cur != 0
		switch {
		case flags&expNX != 0 && hasTTL,
			flags&expXX != 0 && !hasTTL,
			flags&expGT != 0 && (!hasTTL || when <= cur),
			flags&expLT != 0 && hasTTL && when >= cur:
			c.W.WriteInt(0)
			return
		}
	}
	if when <= c.Tx.Now() {
		c.Tx.Delete(key)
	} else {
		c.Tx.SetExpireAt(key, when)
	}
	c.W.WriteInt(1)
}

// cmdTTL serves TTL, PTTL, EXPIRETIME and PEXPIRETIME.
func cmdTTL(c *Ctx, args [][]byte) {
	at, ok := c.Tx.ExpireAt(c.Tx.KeyString(args[1]))
	switch {
	case !ok:
		c.W.WriteInt(-2)
	case at == 0:
		c.W.WriteInt(-1)
	case c.Name == "expiretime":
		c.W.WriteInt(at / 1000)
	case c.Name == "pexpiretime":
		c.W.WriteInt(at)
	default:
		left := at - c.Tx.Now()
		if left < 0 {
			left = 0
		}
		if c.Name == "ttl" {
			left = (left + 500) / 1000
		}
		c.W.WriteInt(left)
	}
}

func cmdPersist(c *Ctx, args [][]byte) {
	key := c.Tx.KeyString(args[1])
	at, ok := c.Tx.ExpireAt(key)
	if !ok || at == 0 {
		c.W.WriteInt(0)
		return
	}
	c.Tx.SetExpireAt(key, 0)
	c.W.WriteInt(1)
}
