package resp

// SplitArgs splits a line into arguments as Redis's sdssplitargs does, for
// inline commands and configuration-file lines alike: blanks separate them; "double quotes" take \n, \r,
// \t, \b, \a, \xHH and \<any> escapes; 'single quotes' take \' only; a
// closing quote must be followed by a blank or the end; a quote opened
// inside an argument joins it. It reports false for unbalanced quotes. The
// arguments share one new buffer, never the line.
func SplitArgs(line []byte, args [][]byte) ([][]byte, bool) {
	buf := make([]byte, 0, len(line)) // arguments are never longer than the line
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return args, true
		}
		start := len(buf)
		var ok bool
		if buf, i, ok = splitArg(line, i, buf); !ok {
			return args, false
		}
		args = append(args, buf[start:len(buf):len(buf)])
	}
}

// splitArg appends the argument at line[i:] to buf and returns where the
// next one may start.
func splitArg(line []byte, i int, buf []byte) ([]byte, int, bool) {
	var quote byte // the open quote, 0 outside quotes
	for ; ; i++ {
		if i == len(line) {
			return buf, i, quote == 0
		}
		c := line[i]
		switch {
		case quote == 0:
			switch c {
			case ' ', '\n', '\r', '\t':
				return buf, i + 1, true
			case '"', '\'':
				quote = c
			default:
				buf = append(buf, c)
			}
		case c == quote:
			if i+1 < len(line) && !isBlank(line[i+1]) {
				return buf, i, false
			}
			return buf, i + 1, true
		case quote == '"' && c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
			buf = append(buf, hexVal(line[i+2])<<4|hexVal(line[i+3]))
			i += 3
		case quote == '"' && c == '\\' && i+1 < len(line):
			i++
			buf = append(buf, unescape(line[i]))
		case quote == '\'' && c == '\\' && i+1 < len(line) && line[i+1] == '\'':
			i++
			buf = append(buf, '\'')
		default:
			buf = append(buf, c)
		}
	}
}

// isBlank is C's isspace.
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}
