package commands

import "strings"

// ruleError is a reason Redis 7.0 gives for a rule it refuses, in its
// words (capitalized, as ACL SETUSER shows them).
type ruleError string

func (e ruleError) Error() string { return string(e) }

// The reasons.
const (
	errRuleUnknown  ruleError = "Unknown command or category name in ACL"
	errRuleSyntax   ruleError = "Syntax error"
	errRuleHash     ruleError = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	errRuleAllKeys  ruleError = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	errRuleAllChans ruleError = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	errRuleNoPass   ruleError = "The password you are trying to remove from the user does not exist"
	errRuleSubArg   ruleError = "Allowing first-arg of a subcommand is not supported"
)

// newPerms is a new user's state: off, no password, no key, channel or
// command (acl-pubsub-default resetchannels, as Redis 7.0 defaults).
func (a *ACL) newPerms() *aclPerms {
	return &aclPerms{aclSelector: a.newSelector()}
}

// apply applies one rule to p, as ACL SETUSER does: the user's own rules
// here, a selector in parentheses, and the root permissions' rules.
func (a *ACL) apply(p *aclPerms, rule string) error {
	low := strings.ToLower(rule)
	if fn := a.flagRule(low); fn != nil {
		fn(p)
		return nil
	}
	switch {
	case rule == "":
		return nil // Redis takes an empty rule as no rule
	case rule[0] == '>' || rule[0] == '<' || rule[0] == '#' || rule[0] == '!':
		return applyPassRule(p, rule)
	case len(rule) > 1 && rule[0] == '(' && rule[len(rule)-1] == ')':
		s, err := a.parseSelector(rule)
		if err != nil {
			return err
		}
		p.selectors = append(p.selectors, &s)
		return nil
	}
	return a.applySel(&p.aclSelector, rule)
}

// flagRule returns the user's rules that are words.
func (a *ACL) flagRule(low string) func(p *aclPerms) {
	switch low {
	case "on":
		return func(p *aclPerms) { p.on = true }
	case "off":
		return func(p *aclPerms) { p.on = false }
	case "nopass":
		return func(p *aclPerms) { p.nopass, p.passwords = true, nil }
	case "resetpass":
		return func(p *aclPerms) { p.nopass, p.passwords = false, nil }
	case "sanitize-payload", "skip-sanitize-payload":
		return func(p *aclPerms) { p.sanitize = low }
	case "clearselectors":
		return func(p *aclPerms) { p.selectors = nil }
	case "reset":
		return func(p *aclPerms) {
			*p = *a.newPerms()
			p.sanitize = "sanitize-payload"
		}
	}
	return nil
}

func (a *ACL) setAll(p *aclSelector, on bool) {
	var word uint64
	if on {
		word = ^uint64(0)
	}
	for i := range p.allowed {
		p.allowed[i] = word
	}
	p.future = on
	p.firstArgs = map[int][]string{}
}

func applyPassRule(p *aclPerms, rule string) error {
	h := rule[1:]
	if rule[0] == '>' || rule[0] == '<' {
		h = hashPass([]byte(rule[1:]))
	} else if !validHash(h) {
		return errRuleHash
	}
	if rule[0] == '>' || rule[0] == '#' {
		if !contains(p.passwords, h) {
			p.passwords = append(p.passwords, h)
		}
		p.nopass = false
		return nil
	}
	for i, have := range p.passwords {
		if have == h {
			p.passwords = append(p.passwords[:i:i], p.passwords[i+1:]...)
			return nil
		}
	}
	return errRuleNoPass
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !('0' <= h[i] && h[i] <= '9' || 'a' <= h[i] && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// applyKeyRule is ~pattern and %R~, %W~, %RW~pattern (each flag once; a
// "%R" without a tilde is the empty pattern, as Redis reads it).
func applyKeyRule(p *aclSelector, rule string) error {
	if p.allKeys {
		return errRuleAllKeys
	}
	kp := keyPattern{read: true, write: true}
	at := 1
	if rule[0] == '%' {
		kp.read, kp.write = false, false
	flags:
		for ; at < len(rule); at++ {
			switch c := rule[at]; {
			case (c == 'R' || c == 'r') && !kp.read:
				kp.read = true
			case (c == 'W' || c == 'w') && !kp.write:
				kp.write = true
			case c == '~':
				at++
				break flags
			default:
				return errRuleSyntax
			}
		}
		if !kp.read && !kp.write {
			return errRuleSyntax
		}
	}
	kp.pattern = rule[min(at, len(rule)):]
	if hasSpaces(kp.pattern) {
		return errRuleSyntax
	}
	for i, have := range p.keys {
		if have.pattern == kp.pattern {
			p.keys[i].read = have.read || kp.read
			p.keys[i].write = have.write || kp.write
			return nil
		}
	}
	p.keys = append(p.keys, kp)
	return nil
}

// applyCmdRule is +cmd, -cmd, +@cat, -@cat and +cmd|sub (or +cmd|firstarg).
func (a *ACL) applyCmdRule(p *aclSelector, rule string) error {
	on := rule[0] == '+'
	name := strings.ToLower(rule[1:])
	if strings.HasPrefix(name, "@") {
		cat := aclCategory(name[1:])
		if cat == 0 {
			return errRuleUnknown
		}
		for id := range a.uni.entries {
			if a.uni.entries[id].cats&cat != 0 {
				a.change(p, id, on)
			}
		}
		return nil
	}
	if id, ok := a.uni.byName[name]; ok {
		a.change(p, id, on)
		return nil
	}
	bar := strings.IndexByte(name, '|')
	if !on || bar < 0 {
		return errRuleUnknown
	}
	id, ok := a.uni.byName[name[:bar]]
	if !ok {
		return errRuleUnknown
	}
	arg := name[bar+1:]
	switch {
	case a.uni.entries[id].subs != nil && strings.IndexByte(arg, '|') >= 0:
		return errRuleSubArg
	case a.uni.entries[id].subs != nil || strings.IndexByte(arg, '|') >= 0 || arg == "":
		return errRuleUnknown
	}
	if !p.bit(id) && !contains(p.firstArgs[id], arg) {
		p.firstArgs[id] = append(p.firstArgs[id], arg)
	}
	return nil
}

// change sets or clears an entry's bit, and a container's subcommands'
// with it, as Redis's ACLChangeSelectorPerm.
func (a *ACL) change(p *aclSelector, id int, on bool) {
	p.setBit(id, on)
	delete(p.firstArgs, id)
	for _, sid := range a.uni.entries[id].subs {
		p.setBit(sid, on)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
