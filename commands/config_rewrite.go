package commands

import (
	"strconv"
	"strings"

	"github.com/qlessd/qlessd/config"
)

// configRewrite is CONFIG REWRITE: the file the server started with gets
// every parameter's current value, keeping its comments and other lines.
func configRewrite(c *Ctx) {
	path := c.Env.ConfigFile()
	if path == "" {
		c.Error(ErrNoConfigFile)
		return
	}
	if err := config.Rewrite(path, RewriteSettings(c.Env.ConfigValues())); err != nil {
		c.Error(Errorf(ErrRewriteConfig, strerror(err)))
		return
	}
	c.OK()
}

// RewriteSettings is what CONFIG REWRITE writes for values (as
// ConfigValues gives them): every parameter, with the lines a file writes
// it as.
func RewriteSettings(values map[string]string) []config.Setting {
	var out []config.Setting
	for i := range configParams {
		p := &configParams[i]
		v, ok := values[p.Name]
		if !ok {
			continue
		}
		// Redis quotes its string values, bind's addresses aside.
		quoted := p.Kind == KindString && p.Name != "bind" || p.Kind == KindHostList
		def := v == p.DefaultValue()
		if p.Name == "http-addr" {
			// Its default follows the port.
			addr, ok := DefaultHTTPAddr(values["port"])
			def = ok && v == addr
		}
		out = append(out, config.Setting{Name: p.Name, Lines: p.fileLines(v), Default: def, Quoted: quoted})
	}
	return out
}

// fileLines writes a normalized value as the lines of a file, as Redis's
// CONFIG REWRITE writes them: a save pair or an output limit class a line,
// sizes with the largest unit that divides them.
func (p *ConfigParam) fileLines(v string) [][]string {
	f := strings.Fields(v)
	switch p.Kind {
	case KindSave:
		var lines [][]string
		for i := 0; i+1 < len(f); i += 2 {
			lines = append(lines, f[i:i+2])
		}
		return lines
	case KindOutputLimit:
		var lines [][]string
		for i := 0; i+3 < len(f); i += 4 {
			lines = append(lines, []string{f[i], formatMemory(f[i+1]), formatMemory(f[i+2]), f[i+3]})
		}
		return lines
	case KindMemory:
		return [][]string{{formatMemory(v)}}
	}
	return [][]string{{v}}
}

// formatMemory writes a byte count in gb, mb or kb when one divides it.
func formatMemory(v string) string {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return v
	}
	for _, u := range []struct {
		name string
		size uint64
	}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}} {
		if n%u.size == 0 {
			return strconv.FormatUint(n/u.size, 10) + u.name
		}
	}
	return v
}
