package config

import (
	"errors"
	"strconv"
	"strings"
)

var errUnbalanced = errors.New("unbalanced quotes in configuration line")

// SplitArgs splits a line into words as Redis splits configuration lines
// and redis-cli input: spaces separate words; "double quotes" take the
// escapes \n \r \t \b \a \\ \" and \xHH; 'single quotes' take \' only; a
// closing quote must end the word.
func SplitArgs(line string) ([]string, error) {
	var out []string
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return out, nil
		}
		var word strings.Builder
		for i < len(line) && !isSpace(line[i]) {
			var err error
			switch line[i] {
			case '"':
				i, err = doubleQuoted(line, i+1, &word)
			case '\'':
				i, err = singleQuoted(line, i+1, &word)
			default:
				word.WriteByte(line[i])
				i++
				continue
			}
			if err != nil {
				return nil, err
			}
			if i < len(line) && !isSpace(line[i]) {
				return nil, errUnbalanced
			}
		}
		out = append(out, word.String())
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

var escapes = map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'a': '\a'}

// doubleQuoted reads a "..." word from after its quote, returning the
// index after the closing quote.
func doubleQuoted(line string, i int, w *strings.Builder) (int, error) {
	for i < len(line) {
		c := line[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
			v, _ := strconv.ParseUint(line[i+2:i+4], 16, 8)
			w.WriteByte(byte(v))
			i += 4
		case c == '\\' && i+1 < len(line):
			if e, ok := escapes[line[i+1]]; ok {
				w.WriteByte(e)
			} else {
				w.WriteByte(line[i+1])
			}
			i += 2
		default:
			w.WriteByte(c)
			i++
		}
	}
	return 0, errUnbalanced
}

func singleQuoted(line string, i int, w *strings.Builder) (int, error) {
	for i < len(line) {
		c := line[i]
		switch {
		case c == '\'':
			return i + 1, nil
		case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
			w.WriteByte('\'')
			i += 2
		default:
			w.WriteByte(c)
			i++
		}
	}
	return 0, errUnbalanced
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
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
