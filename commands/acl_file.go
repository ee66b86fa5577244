package commands

import (
	"fmt"
	"os"
	"strings"

	"github.com/qlessd/qlessd/config"
)

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

// LoadFile replaces the users with those of the ACL file: lines
// "user <name> <rule> ...". On any error nothing changes and the error
// names the file and line. A file without "default" gets the default
// user with every permission and no password, as Redis's does.
func (a *ACL) LoadFile(caller Session) error {
	data, err := os.ReadFile(a.File)
	if err != nil {
		return fmt.Errorf("Error loading ACLs, opening file '%s': %s", a.File, strerror(err))
	}
	a.mu.Lock()
	fresh, errs := a.parseFile(string(data))
	if errs != "" {
		a.mu.Unlock()
		return fmt.Errorf("%sWARNING: ACL errors detected, no change to the previously active ACL rules was performed", errs)
	}
	gone := a.install(fresh)
	a.mu.Unlock()
	if len(gone) > 0 && a.OnDelete != nil {
		a.OnDelete(caller, gone)
	}
	return nil
}

// parseFile reads the users of an ACL file: their states, and the errors
// in Redis's words ("" for none). a.mu is held.
func (a *ACL) parseFile(data string) (map[string]*aclPerms, string) {
	fresh := map[string]*aclPerms{}
	var errs strings.Builder
	for i, line := range strings.Split(data, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		errs.WriteString(a.loadLine(strings.Split(line, " "), i+1, fresh))
	}
	return fresh, errs.String()
}

// install makes the users of a loaded file the server's. As in Redis 7.0,
// every user but default is made anew, so it returns all the others as
// gone: their connections are closed, changed or not, while default's
// stay whatever it lost. a.mu is held.
func (a *ACL) install(fresh map[string]*aclPerms) []*User {
	if fresh["default"] == nil {
		fresh["default"] = a.defaultUser().perms.Load()
	}
	var gone []*User
	for name, u := range a.users {
		if u != a.Default {
			delete(a.users, name)
			gone = append(gone, u)
		}
	}
	for name, p := range fresh {
		u := a.Default
		if name != "default" {
			u = &User{Name: name}
			a.users[name] = u
		}
		a.store(u, p)
	}
	return gone
}

// loadLine parses one user line (its words split at single spaces, as
// Redis splits them) into fresh: "" when it is good, else its errors in
// Redis's words.
func (a *ACL) loadLine(f []string, n int, fresh map[string]*aclPerms) string {
	if f[0] != "user" || len(f) < 2 {
		return fmt.Sprintf("%s:%d should start with user keyword followed by the username. ", a.File, n)
	}
	name := f[1]
	if fresh[name] != nil {
		return fmt.Sprintf("WARNING: Duplicate user '%s' found on line %d. ", name, n)
	}
	// The user exists from here, errors or not: a later line naming it
	// again is a duplicate, as in Redis.
	p := a.newPerms()
	fresh[name] = p
	rules, _, ok := mergeSelectorArgs(f[2:])
	if !ok {
		// Redis 7.0.15 crashes here when a rule came before the unclosed
		// selector; this is the message it gives when none did.
		return fmt.Sprintf("%s:%d: Unmatched parenthesis in selector definition.", a.File, n)
	}
	// Redis names every unknown command or category, and of the other
	// errors only the first, which may explain those after it.
	var errs strings.Builder
	other := false
	for _, r := range rules {
		r = strings.Trim(r, "\t\r\n")
		err := a.apply(p, r)
		switch {
		case err == nil:
		case err == errRuleUnknown:
			fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %v. ", a.File, n, r, err)
		case !other:
			fmt.Fprintf(&errs, "%s:%d: %v. ", a.File, n, err)
			other = true
		}
	}
	return errs.String()
}

// SaveFile writes every user to the ACL file, through a temporary file
// renamed over it so that a crash leaves the old file or the new.
func (a *ACL) SaveFile() error {
	var b strings.Builder
	for _, n := range a.names() {
		if u := a.User(n); u != nil {
			b.WriteString(a.describeUser(u) + "\n")
		}
	}
	return config.WriteFileAtomic(a.File, b.String(), 0o600)
}

func (a *ACL) saveCmd(c *Ctx) {
	if a.File == "" {
		c.Error(errNoACLFile)
		return
	}
	if err := a.SaveFile(); err != nil {
		c.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.OK()
}

func (a *ACL) loadCmd(c *Ctx) {
	if a.File == "" {
		c.Error(errNoACLFile)
		return
	}
	if err := a.LoadFile(c.Sess); err != nil {
		c.Error("ERR " + err.Error())
		return
	}
	c.OK()
}
