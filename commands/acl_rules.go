package commands

import "strings"

// ruleError is a reason Redis 7.0 gives for a rule it refuses, in its
// words (capitalized, as ACL SETUSER shows them).
type ruleError string

func (e ruleError) Error() string { return string(e) }

// The reasons.
const (
	errRuleUnknown   ruleError = "Unknown command or category name in ACL"
	errRuleSyntax    ruleError = "Syntax error"
	errRuleHash      ruleError = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	errRuleAllKeys   ruleError = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	errRuleAllChans  ruleError = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	errRuleNoPass    ruleError = "The password you are trying to remove from the user does not exist"
	errRuleSubArg    ruleError = "Allowing first-arg of a subcommand is not supported"
	errRuleSelectors ruleError = "Selectors are not supported by qlessd"
)

// newPerms is a new user's state: off, no password, no key, channel or
// command (acl-pubsub-default resetchannels, as Redis 7.0 defaults).
func (a *ACL) newPerms() *aclPerms {
	return &aclPerms{allowed: make([]uint64, (len(a.uni.entries)+63)/64), firstArgs: map[int][]string{}}
}

// apply applies one rule to p, as ACL SETUSER does.
func (a *ACL) apply(p *aclPerms, rule string) error {
	low := strings.ToLower(rule)
	if fn := a.flagRule(low); fn != nil {
		fn(p)
		return nil
	}
	if rule == "" {
		return errRuleSyntax
	}
	switch rule[0] {
	case '>', '<', '#', '!':
		return applyPassRule(p, rule)
	case '~', '%':
		return applyKeyRule(p, rule)
	case '&':
		if p.allChans {
			return errRuleAllChans
		}
		if rule == "&*" {
			p.allChans, p.channels = true, nil
		} else if !contains(p.channels, rule[1:]) {
			p.channels = append(p.channels, rule[1:])
		}
		return nil
	case '+', '-':
		return a.applyCmdRule(p, rule)
	case '(':
		return errRuleSelectors
	}
	return errRuleSyntax
}

// flagRule returns the rules that are words.
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
	case "allkeys":
		return func(p *aclPerms) { p.allKeys, p.keys = true, nil }
	case "resetkeys":
		return func(p *aclPerms) { p.allKeys, p.keys = false, nil }
	case "allchannels":
		return func(p *aclPerms) { p.allChans, p.channels = true, nil }
	case "resetchannels":
		return func(p *aclPerms) { p.allChans, p.channels = false, nil }
	case "allcommands", "+@all":
		return func(p *aclPerms) { a.setAll(p, true) }
	case "nocommands", "-@all":
		return func(p *aclPerms) { a.setAll(p, false) }
	case "sanitize-payload", "skip-sanitize-payload":
		return func(p *aclPerms) { p.sanitize = low }
	case "clearselectors":
		return func(p *aclPerms) {}
	case "reset":
		return func(p *aclPerms) {
			*p = *a.newPerms()
			p.sanitize = "sanitize-payload"
		}
	}
	return nil
}

func (a *ACL) setAll(p *aclPerms, on bool) {
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

func applyKeyRule(p *aclPerms, rule string) error {
	kp := keyPattern{read: true, write: true}
	if rule[0] == '%' {
		tilde := strings.IndexByte(rule, '~')
		if tilde < 0 {
			tilde = len(rule)
		}
		flags := rule[1:tilde]
		kp.read, kp.write = false, false
		for _, f := range flags {
			switch f {
			case 'R', 'r':
				kp.read = true
			case 'W', 'w':
				kp.write = true
			default:
				return errRuleSyntax
			}
		}
		if flags == "" {
			return errRuleSyntax
		}
		rule = rule[tilde:]
		if rule == "" {
			rule = "~"
		}
	}
	if p.allKeys {
		return errRuleAllKeys
	}
	kp.pattern = rule[1:]
	if kp.pattern == "*" && kp.read && kp.write {
		p.allKeys, p.keys = true, nil
		return nil
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
func (a *ACL) applyCmdRule(p *aclPerms, rule string) error {
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
func (a *ACL) change(p *aclPerms, id int, on bool) {
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
