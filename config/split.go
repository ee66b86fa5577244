package config

import (
	"errors"
	"strconv"
	"strings"

	"github.com/qlessd/qlessd/resp"
)

var errUnbalanced = errors.New("unbalanced quotes in configuration line")

// SplitArgs splits a line into words as Redis splits configuration lines
// and inline commands (resp.SplitArgs): spaces separate words; "double
// quotes" take the escapes \n \r \t \b \a \\ \" and \xHH; 'single quotes'
// take \' only; a closing quote must end the word.
func SplitArgs(line string) ([]string, error) {
	args, ok := resp.SplitArgs([]byte(line), nil)
	if !ok {
		return nil, errUnbalanced
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out, nil
}

// Quote writes a word so that SplitArgs reads it back: as it is when it
// needs no quotes, else double-quoted with escapes.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n\v\f\"'\\") && isPrintable(s) {
		return s
	}
	return quoted(s)
}

// quoted writes s in double quotes with escapes.
func quoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(c)>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(c)&15, 16))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}
