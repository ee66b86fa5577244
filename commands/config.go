package commands

import (
	"math"
	"strconv"
	"strings"
)

// Check checks a value of the parameter as CONFIG SET does and returns it
// normalized (a memory value in bytes, say), or the reason Redis gives for
// refusing it: the command line and the file share its rules.
func (p *ConfigParam) Check(v string) (string, string) {
	switch p.Kind {
	case KindBool:
		switch strings.ToLower(v) {
		case "yes":
			return "yes", ""
		case "no":
			if p.Name == "appendonly" {
				return "", "qlessd always keeps its append-only file"
			}
			return "no", ""
		}
		return "", "argument must be 'yes' or 'no'"
	case KindEnum:
		for _, e := range p.Enum {
			if strings.EqualFold(e, v) {
				return e, ""
			}
		}
		return "", "argument(s) must be one of the following: " + strings.Join(p.Enum, ", ")
	case KindInt:
		n, ok := ParseInt([]byte(v))
		if !ok {
			return "", "argument couldn't be parsed into an integer"
		}
		if n < p.Min || n > p.Max {
			return "", p.rangeReason()
		}
		return strconv.FormatInt(n, 10), ""
	case KindMemory:
		n, ok := ParseMemory(v)
		if !ok {
			return "", "argument must be a memory value"
		}
		if n < uint64(p.Min) || n > uint64(p.Max) {
			return "", p.rangeReason()
		}
		return strconv.FormatUint(n, 10), ""
	case KindOutputLimit:
		limits, reason := parseOutputLimits(v, nil)
		if reason != "" {
			return "", reason
		}
		return formatOutputLimits(limits), ""
	case KindHostList:
		hosts, reason := SplitHostList(v)
		if reason != "" {
			return "", reason
		}
		return strings.Join(hosts, " "), ""
	case KindSave:
		f := strings.Fields(v)
		if len(f)%2 != 0 {
			return "", "Invalid save parameters"
		}
		for _, x := range f {
			if n, err := strconv.ParseInt(x, 10, 64); err != nil || n < 0 {
				return "", "Invalid save parameters"
			}
		}
		return strings.Join(f, " "), ""
	}
	return v, ""
}

func (p *ConfigParam) rangeReason() string {
	return "argument must be between " + strconv.FormatInt(p.Min, 10) + " and " +
		strconv.FormatInt(p.Max, 10) + " inclusive"
}

// ParseMemory reads a memory value as redis.conf writes them: digits (none
// reads as 0) with an optional unit, k/m/g for powers of 1000 and kb/mb/gb
// for powers of 1024, in any case. A value too large for 64 bits reads as
// the largest one, which the caller's range check then refuses, as Redis
// does.
func ParseMemory(s string) (uint64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1 << 10
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if i == 0 {
		return 0, true // as strtoull reads no digits: "kb" is 0
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil || n > math.MaxUint64/mul {
		return math.MaxUint64, true
	}
	return n * mul, true
}

// cmdConfig is CONFIG GET|SET|RESETSTAT|REWRITE|HELP.
func cmdConfig(c *Ctx, args [][]byte) {
	sub := strings.ToLower(string(args[1]))
	switch sub {
	case "get":
		if len(args) < 3 {
			c.Error(WrongArgs("config|get"))
			return
		}
		configGet(c, args[2:])
	case "set":
		if len(args) < 4 {
			c.Error(WrongArgs("config|set"))
			return
		}
		if len(args)%2 != 0 {
			c.Error(ErrSyntax)
			return
		}
		configSet(c, args[2:])
	case "resetstat":
		if len(args) != 2 {
			c.Error(WrongArgs("config|resetstat"))
			return
		}
		c.Env.ResetStats()
		c.OK()
	case "rewrite":
		if len(args) != 2 {
			c.Error(WrongArgs("config|rewrite"))
			return
		}
		configRewrite(c)
	case "help":
		writeHelp(c, "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
			"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
			"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
			"RESETSTAT", "    Reset statistics reported by the INFO command.",
			"REWRITE", "    Rewrite the configuration file.")
	default:
		c.Error(Errorf(ErrUnknownSub, string(args[1]), "CONFIG"))
	}
}

func configGet(c *Ctx, patterns [][]byte) {
	values := c.Env.ConfigValues()
	var out []string
	for _, p := range configParams {
		v, ok := values[p.Name]
		if !ok {
			continue
		}
		for _, pat := range patterns {
			if GlobMatch(pat, p.Name, true) {
				out = append(out, p.Name, v)
				break
			}
		}
	}
	c.W.WriteMap(len(out) / 2)
	for _, s := range out {
		c.W.WriteBulkString(s)
	}
}

// configSet checks every name, then every value, before applying any, as
// Redis 7.0 does.
func configSet(c *Ctx, pairs [][]byte) {
	params := make([]*ConfigParam, 0, len(pairs)/2)
	seen := map[string]bool{}
	for i := 0; i < len(pairs); i += 2 {
		name := string(pairs[i])
		p := FindConfigParam(name)
		switch {
		case p == nil:
			c.Error(Errorf(ErrConfigParam, name))
			return
		case !p.Mutable:
			c.Error(Errorf(ErrConfigSetFailed, name, "can't set immutable config"))
			return
		case seen[p.Name]:
			c.Error(Errorf(ErrConfigSetFailed, name, "duplicate parameter"))
			return
		}
		seen[p.Name] = true
		params = append(params, p)
	}
	values := make([]string, len(params))
	for i, p := range params {
		v, reason := p.Check(string(pairs[2*i+1]))
		if reason != "" {
			c.Error(Errorf(ErrConfigSetFailed, string(pairs[2*i]), reason))
			return
		}
		values[i] = v
	}
	if batch, ok := c.Env.(ConfigBatch); ok {
		names := make([]string, len(params))
		for i, p := range params {
			names[i] = p.Name
		}
		if name, err := batch.SetConfigs(names, values); err != nil {
			c.Error(Errorf(ErrConfigSetFailed, name, err.Error()))
			return
		}
		c.OK()
		return
	}
	for i, p := range params {
		if err := c.Env.SetConfig(p.Name, values[i]); err != nil {
			c.Error(Errorf(ErrConfigSetFailed, p.Name, err.Error()))
			return
		}
	}
	c.OK()
}

// ConfigBatch is an Env that applies one CONFIG SET's parameters itself,
// when some of them take effect together (the tls-* files): it returns
// the name of the parameter a failure is about.
type ConfigBatch interface {
	SetConfigs(names, values []string) (failed string, err error)
}
