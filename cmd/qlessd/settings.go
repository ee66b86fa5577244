package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/qlessd/qlessd/commands"
	"github.com/qlessd/qlessd/config"
)

// settings is every parameter's value (commands.ConfigParams), checked and
// normalized as CONFIG GET gives it.
type settings map[string]string

// loadSettings reads `[file] [--name value...]`: the defaults, then the
// file's lines, then the arguments, a later value winning (save and
// client-output-buffer-limit lines add up, as in redis.conf); http-addr,
// unless given, follows the port (commands.DefaultHTTPAddr). file comes
// back absolute, for CONFIG REWRITE. A refusal names the file and line,
// or the argument.
func loadSettings(argv []string) (s settings, file string, err error) {
	file, args, err := config.ParseArgs(argv)
	if err != nil {
		return nil, "", err
	}
	var ds []config.Directive
	if file != "" {
		if file, err = filepath.Abs(file); err != nil {
			return nil, "", err
		}
		if ds, err = config.ParseFile(file); err != nil {
			return nil, "", err
		}
	}
	s = settings{}
	for _, p := range commands.ConfigParams() {
		s[p.Name] = p.DefaultValue()
	}
	seen := map[string]bool{}
	for _, d := range append(ds, args...) {
		p := commands.FindConfigParam(d.Name)
		if p == nil {
			return nil, "", d.Errorf("unknown parameter (qlessd --help lists them)")
		}
		raw, ok := p.FromArgs(d.Args)
		if !ok {
			return nil, "", d.Errorf("wrong number of arguments: want one value, got %d", len(d.Args))
		}
		v, reason := p.Check(raw)
		if reason != "" {
			return nil, "", d.Errorf("%s (got %s)", reason, config.Quote(raw))
		}
		if seen[p.Name] || p.Kind == commands.KindOutputLimit {
			v = p.Merge(s[p.Name], v)
		}
		seen[p.Name] = true
		s[p.Name] = v
	}
	if !seen["http-addr"] {
		addr, ok := commands.DefaultHTTPAddr(s["port"])
		if !ok {
			return nil, "", fmt.Errorf("the HTTP listener's default port, port + %d, is past 65535: set --http-addr (empty: off)", commands.HTTPPortOffset)
		}
		s["http-addr"] = addr
	}
	return s, file, nil
}

func (s settings) str(name string) string {
	v, ok := s[name]
	if !ok {
		panic(fmt.Sprintf("no parameter %q", name)) // a name missing from commands.ConfigParams
	}
	return v
}

func (s settings) on(name string) bool { return s.str(name) == "yes" }

// int is an integer or memory parameter, already checked to fit.
func (s settings) int(name string) int64 {
	n, err := strconv.ParseInt(s.str(name), 10, 64)
	if err != nil {
		panic(fmt.Sprintf("parameter %q is not a number: %v", name, err))
	}
	return n
}
