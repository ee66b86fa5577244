package commands

// cmdLCS is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the
// longest common subsequence, found with the classic dynamic programming
// table and walked back from the end as Redis does, so IDX lists the
// matching ranges from the last to the first.
func cmdLCS(c *Ctx, args [][]byte) {
	// A missing key reads as the empty string.
	a, _, aerr := c.Tx.GetString(string(args[1]))
	b, _, berr := c.Tx.GetString(string(args[2]))
	if aerr != nil || berr != nil {
		c.Error(ErrLCSTypes)
		return
	}
	var getIdx, getLen, withLen bool
	var minLen int64
	for j := 3; j < len(args); j++ {
		switch {
		case EqualFold(args[j], "idx"):
			getIdx = true
		case EqualFold(args[j], "len"):
			getLen = true
		case EqualFold(args[j], "withmatchlen"):
			withLen = true
		case EqualFold(args[j], "minmatchlen") && j+1 < len(args):
			n, ok := ParseInt(args[j+1])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			minLen = max(n, 0)
			j++
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.Error(ErrLCSIdxLen)
		return
	}
	if uint64(len(a)+1)*uint64(len(b)+1) >= (1<<32-1)/4 {
		c.Error(ErrLCSMemory)
		return
	}
	// dp[i][j] is the LCS length of a[:i] and b[:j].
	w := len(b) + 1
	dp := make([]uint32, (len(a)+1)*w)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				dp[i*w+j] = dp[(i-1)*w+j-1] + 1
			case dp[(i-1)*w+j] > dp[i*w+j-1]:
				dp[i*w+j] = dp[(i-1)*w+j]
			default:
				dp[i*w+j] = dp[i*w+j-1]
			}
		}
	}
	total := int(dp[len(a)*w+len(b)])
	if getLen {
		c.W.WriteInt(int64(total))
		return
	}
	type match struct{ aStart, aEnd, bStart, bEnd int }
	var matches []match
	result := make([]byte, total)
	idx := total
	none := len(a) // "no range open", as Redis marks it
	cur := match{aStart: none}
	emit := func() {
		if n := cur.aEnd - cur.aStart + 1; minLen == 0 || int64(n) >= minLen {
			matches = append(matches, cur)
		}
		cur.aStart = none
	}
	for i, j := len(a), len(b); i > 0 && j > 0; {
		emitNow := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if cur.aStart == none {
				cur = match{i - 1, i - 1, j - 1, j - 1}
			} else {
				// Each step of a match is diagonal, so the open range
				// always extends backwards by one.
				cur.aStart--
				cur.bStart--
			}
			if cur.aStart == 0 || cur.bStart == 0 {
				emitNow = true
			}
			idx--
			i--
			j--
		} else {
			if dp[(i-1)*w+j] > dp[i*w+j-1] {
				i--
			} else {
				j--
			}
			emitNow = cur.aStart != none
		}
		if emitNow {
			emit()
		}
	}
	if !getIdx {
		c.W.WriteBulk(result)
		return
	}
	c.W.WriteMap(2)
	c.W.WriteBulkString("matches")
	c.W.WriteArray(len(matches))
	for _, m := range matches {
		if withLen {
			c.W.WriteArray(3)
		} else {
			c.W.WriteArray(2)
		}
		c.W.WriteArray(2)
		c.W.WriteInt(int64(m.aStart))
		c.W.WriteInt(int64(m.aEnd))
		c.W.WriteArray(2)
		c.W.WriteInt(int64(m.bStart))
		c.W.WriteInt(int64(m.bEnd))
		if withLen {
			c.W.WriteInt(int64(m.aEnd - m.aStart + 1))
		}
	}
	c.W.WriteBulkString("len")
	c.W.WriteInt(int64(total))
}
