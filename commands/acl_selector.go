package commands

import (
	"strings"

	"github.com/qlessd/qlessd/config"
)

// aclSelector is one set of command, key and channel permissions: a
// user's root permissions, or one of its selectors ("(~k* +get)"). A call
// is allowed when the root or any selector allows all of it, as in Redis
// 7.0.
type aclSelector struct {
	// future is Redis's reserved command bit, set by +@all only: the
	// selector may run commands added later, and its rules start from +@all.
	future    bool
	allowed   []uint64 // bit per universe entry
	firstArgs map[int][]string
	keys      []keyPattern
	allKeys   bool
	channels  []string
	allChans  bool
}

// keyPattern is a ~, %R~ or %W~ rule.
type keyPattern struct {
	read, write bool
	pattern     string
}

func (s *aclSelector) copySel() aclSelector {
	q := *s
	q.allowed = append([]uint64(nil), s.allowed...)
	q.keys = append([]keyPattern(nil), s.keys...)
	q.channels = append([]string(nil), s.channels...)
	q.firstArgs = map[int][]string{}
	for k, v := range s.firstArgs {
		q.firstArgs[k] = append([]string(nil), v...)
	}
	return q
}

func (s *aclSelector) bit(id int) bool { return s.allowed[id/64]&(1<<(id%64)) != 0 }

func (s *aclSelector) setBit(id int, on bool) {
	if on {
		s.allowed[id/64] |= 1 << (id % 64)
	} else {
		s.allowed[id/64] &^= 1 << (id % 64)
	}
}

// newSelector is a selector allowing nothing (acl-pubsub-default
// resetchannels, as Redis 7.0 defaults).
func (a *ACL) newSelector() aclSelector {
	return aclSelector{allowed: make([]uint64, (len(a.uni.entries)+63)/64), firstArgs: map[int][]string{}}
}

// applySel applies one rule that a selector takes (keys, channels and
// commands); the others are a syntax error, as inside parentheses.
func (a *ACL) applySel(s *aclSelector, rule string) error {
	switch strings.ToLower(rule) {
	case "allkeys", "~*":
		s.allKeys, s.keys = true, nil
		return nil
	case "resetkeys":
		s.allKeys, s.keys = false, nil
		return nil
	case "allchannels", "&*":
		s.allChans, s.channels = true, nil
		return nil
	case "resetchannels":
		s.allChans, s.channels = false, nil
		return nil
	case "allcommands", "+@all":
		a.setAll(s, true)
		return nil
	case "nocommands", "-@all":
		a.setAll(s, false)
		return nil
	}
	if rule == "" {
		return errRuleSyntax
	}
	switch rule[0] {
	case '~', '%':
		return applyKeyRule(s, rule)
	case '&':
		if s.allChans {
			return errRuleAllChans
		}
		if hasSpaces(rule[1:]) {
			return errRuleSyntax
		}
		if !contains(s.channels, rule[1:]) {
			s.channels = append(s.channels, rule[1:])
		}
		return nil
	case '+', '-':
		return a.applyCmdRule(s, rule)
	}
	return errRuleSyntax
}

// parseSelector makes a selector of a "(rule rule ...)" argument: the
// words inside split as Redis's sdssplitargs splits them (unbalanced
// quotes give no words, hence an empty selector, as in Redis).
func (a *ACL) parseSelector(op string) (aclSelector, error) {
	s := a.newSelector()
	words, err := config.SplitArgs(op[1 : len(op)-1])
	if err != nil {
		return s, nil
	}
	for _, w := range words {
		if err := a.applySel(&s, w); err != nil {
			return s, err
		}
	}
	return s, nil
}

// mergeSelectorArgs joins a selector given over several arguments
// ("(~k*" "+get)") into one, with single spaces, as Redis does before
// applying rules. For a parenthesis never closed it returns the index of
// the argument that opened it and false.
func mergeSelectorArgs(args []string) ([]string, int, bool) {
	out := make([]string, 0, len(args))
	open, sel := -1, ""
	for i, op := range args {
		if strings.HasPrefix(op, "(") && !strings.HasSuffix(op, ")") {
			open, sel = i, op
			continue
		}
		if open >= 0 {
			sel += " " + op
			if strings.HasSuffix(op, ")") {
				out = append(out, sel)
				open = -1
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, open, false
	}
	return out, 0, true
}

// hasSpaces is Redis's test for patterns and user names: no blank or NUL.
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}
