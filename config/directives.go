// Package config reads qlessd's configuration as redis-server takes its
// own: a file in redis.conf syntax and `--name value` arguments after it,
// the arguments winning; and writes the file back for CONFIG REWRITE,
// keeping its comments. Which names exist and what values they take is
// the caller's table; this package knows the syntax only.
package config

import (
	"fmt"
	"os"
	"strings"
)

// Directive is one setting as written: its name and arguments, and where.
type Directive struct {
	Name string
	Args []string
	// Where is "path:line" for a file, "argument --name" for the command
	// line, for the message that refuses it.
	Where string
}

// Errorf is a refusal of a directive, naming where it was written.
func (d Directive) Errorf(format string, a ...any) error {
	return fmt.Errorf("%s: %s: %s", d.Where, d.Name, fmt.Sprintf(format, a...))
}

// ParseFile reads a configuration file: one directive a line, blank lines
// and lines starting with # skipped, arguments split as Redis splits them.
func ParseFile(path string) ([]Directive, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Directive
	for i, line := range strings.Split(string(b), "\n") {
		where := fmt.Sprintf("%s:%d", path, i+1)
		words, ok, err := directiveWords(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if ok {
			out = append(out, Directive{Name: strings.ToLower(words[0]), Args: words[1:], Where: where})
		}
	}
	return out, nil
}

// directiveWords splits one line of a file; ok is false for a blank line
// or a comment.
func directiveWords(line string) ([]string, bool, error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return nil, false, nil
	}
	words, err := SplitArgs(line)
	if err != nil || len(words) == 0 {
		return nil, false, err
	}
	return words, true, nil
}

// ParseArgs reads qlessd's command line: an optional configuration file
// first, then `--name value...` settings. A word starting with "--" begins
// a setting; those after it, up to the next, are its arguments.
func ParseArgs(argv []string) (file string, ds []Directive, err error) {
	if len(argv) > 0 && !strings.HasPrefix(argv[0], "--") {
		file, argv = argv[0], argv[1:]
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			return "", nil, fmt.Errorf("argument %q: expected --name (a configuration file goes first)", a)
		}
		d := Directive{Name: strings.ToLower(a[2:]), Where: "argument " + a}
		// --name=value, as Go's flag package took it, is --name value.
		if name, value, ok := strings.Cut(a[2:], "="); ok {
			d.Name, d.Args, d.Where = strings.ToLower(name), []string{value}, "argument --"+name
		}
		for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "--") {
			i++
			d.Args = append(d.Args, argv[i])
		}
		ds = append(ds, d)
	}
	return file, ds, nil
}
