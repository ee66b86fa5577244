package dashboard

import "strings"

// pythonTraceback opens every traceback Python prints (traceback.format_exc,
// which qless-py's workers store as a failure's message), and the reversed
// backtraces Ruby 2.5 to 2.7 printed; both end with the exception line.
const pythonTraceback = "Traceback (most recent call last):"

// exceptionLine is the line of a failure message that tells failures apart:
// the last non-empty line of a traceback that starts with pythonTraceback,
// the first non-empty line otherwise. The qless gem stores the exception's
// message first and its backtrace after a blank line, and Ruby's own
// "file.rb:12:in `x': message (Class)" format leads with the exception too,
// so for those, as for plain messages, the first line is the one to show.
func exceptionLine(msg string) string {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	first := -1
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			first = i
			break
		}
	}
	if first < 0 {
		return ""
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[first]), pythonTraceback) {
		return strings.TrimSpace(lines[first])
	}
	for i := len(lines) - 1; i > first; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return strings.TrimSpace(lines[first])
}
