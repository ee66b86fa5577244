package commands

import "strings"

// describeCommands writes a user's command rules as Redis 7.0 does: from
// +@all or -@all, the categories chosen greedily (each time the one with
// more commands agreeing than differing, the fewest differing, then the
// most agreeing), then the single commands and first arguments left.
// Redis lists the single commands in its hash table's order, which
// changes from run to run; qlessd in its table's order (by name).
func (a *ACL) describeCommands(p *aclSelector) string {
	var b strings.Builder
	fake := a.newSelector()
	additive := !p.future
	sign, inverse := "+@", "-@"
	if p.future {
		b.WriteString("+@all ")
		a.setAll(&fake, true)
		sign, inverse = "-@", "+@"
	} else {
		b.WriteString("-@all ")
	}
	// temp is the user's bitmap with the categories chosen so far taken
	// back, so that their commands count no more.
	temp := &aclSelector{allowed: append([]uint64(nil), p.allowed...), firstArgs: map[int][]string{}}
	applied := make([]bool, len(aclCategoryNames))
	for {
		best := a.bestCategory(temp, additive, applied)
		if best < 0 {
			break
		}
		cat := aclCategoryNames[best]
		a.applyCmdRule(&fake, sign+cat)   //nolint:errcheck // a known category
		a.applyCmdRule(temp, inverse+cat) //nolint:errcheck
		b.WriteString(sign + cat + " ")
		applied[best] = true
	}
	for _, id := range a.uni.top {
		a.describeSingle(&b, p, &fake, id)
		for _, sid := range a.uni.entries[id].subs {
			a.describeSingle(&b, p, &fake, sid)
		}
	}
	return strings.TrimSuffix(b.String(), " ")
}

// bestCategory is the next category describeCommands takes, -1 for none.
func (a *ACL) bestCategory(temp *aclSelector, additive bool, applied []bool) int {
	best, minDiff, maxSame := -1, int(^uint(0)>>1), 0
	for i := range aclCategoryNames {
		if applied[i] {
			continue
		}
		flag := uint32(1) << i
		on, off := 0, 0
		for id := range a.uni.entries {
			if a.uni.entries[id].cats&flag == 0 {
				continue
			}
			if temp.bit(id) {
				on++
			} else {
				off++
			}
		}
		diff, same := off, on
		if !additive {
			diff, same = on, off
		}
		if same > diff && (diff < minDiff || diff == minDiff && same > maxSame) {
			best, minDiff, maxSame = i, diff, same
		}
	}
	return best
}

func (a *ACL) describeSingle(b *strings.Builder, p, fake *aclSelector, id int) {
	e := &a.uni.entries[id]
	if user := p.bit(id); user != fake.bit(id) {
		if user {
			b.WriteString("+")
		} else {
			b.WriteString("-")
		}
		b.WriteString(e.name + " ")
		a.change(fake, id, user)
	}
	if !p.bit(id) {
		for _, arg := range p.firstArgs[id] {
			b.WriteString("+" + e.name + "|" + arg + " ")
		}
	}
}

// describeKeys is the key rules: "~*" for all keys, else each pattern.
func describeKeys(p *aclSelector) string {
	if p.allKeys {
		return "~*"
	}
	parts := make([]string, 0, len(p.keys))
	for _, k := range p.keys {
		switch {
		case k.read && k.write:
			parts = append(parts, "~"+k.pattern)
		case k.read:
			parts = append(parts, "%R~"+k.pattern)
		default:
			parts = append(parts, "%W~"+k.pattern)
		}
	}
	return strings.Join(parts, " ")
}

func describeChannels(p *aclSelector) string {
	if p.allChans {
		return "&*"
	}
	parts := make([]string, 0, len(p.channels))
	for _, c := range p.channels {
		parts = append(parts, "&"+c)
	}
	return strings.Join(parts, " ")
}

// flagNames are the user's flags in Redis's order.
func (p *aclPerms) flagNames() []string {
	out := []string{"off"}
	if p.on {
		out[0] = "on"
	}
	if p.nopass {
		out = append(out, "nopass")
	}
	if p.sanitize == "skip-sanitize-payload" {
		out = append(out, p.sanitize)
	}
	if p.sanitize == "sanitize-payload" {
		out = append(out, p.sanitize)
	}
	return out
}

// describeSelector is a selector as ACL LIST shows it: its keys, its
// channels (from resetchannels unless all), then its commands.
func (a *ACL) describeSelector(s *aclSelector) string {
	parts := []string{}
	if k := describeKeys(s); k != "" {
		parts = append(parts, k)
	}
	if s.allChans {
		parts = append(parts, "&*")
	} else {
		parts = append(parts, "resetchannels")
		if c := describeChannels(s); c != "" {
			parts = append(parts, c)
		}
	}
	parts = append(parts, a.describeCommands(s))
	return strings.Join(parts, " ")
}

// describeUser is the user as ACL LIST and the ACL file show it: flags,
// password hashes, the root permissions, then each selector in
// parentheses.
func (a *ACL) describeUser(u *User) string {
	p := u.perms.Load()
	parts := []string{"user", u.Name}
	parts = append(parts, p.flagNames()...)
	for _, h := range p.passwords {
		parts = append(parts, "#"+h)
	}
	parts = append(parts, a.describeSelector(&p.aclSelector))
	for _, s := range p.selectors {
		parts = append(parts, "("+a.describeSelector(s)+")")
	}
	return strings.Join(parts, " ")
}
