package scripts

import "strings"

// scriptFlags are what a Redis 7.0 "#!lua flags=..." first line declares.
type scriptFlags struct {
	shebang  bool // a shebang was present: the script declares its flags
	noWrites bool
}

var knownFlags = map[string]bool{
	"no-writes": true, "allow-oom": true, "allow-stale": true, "no-cluster": true, "allow-cross-slot-keys": true,
}

// parseShebang reads an optional "#!lua [flags=a,b]" first line. The line
// is blanked rather than cut so error positions keep Redis's line numbers.
// errText is the reply for a malformed shebang.
func parseShebang(body string) (src string, flags scriptFlags, errText string) {
	if !strings.HasPrefix(body, "#!") {
		return body, flags, ""
	}
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return "", flags, "ERR Invalid script shebang"
	}
	parts := strings.Fields(body[:nl])
	if len(parts) == 0 || parts[0] != "#!lua" {
		engine := body[:nl]
		if len(parts) > 0 {
			engine = parts[0]
		}
		return "", flags, "ERR Unexpected engine in script shebang: " + engine
	}
	flags.shebang = true
	for _, opt := range parts[1:] {
		list, ok := strings.CutPrefix(opt, "flags=")
		if !ok {
			return "", flags, "ERR Unknown lua shebang option: " + opt
		}
		for _, f := range strings.Split(list, ",") {
			if f == "" {
				continue
			}
			if !knownFlags[f] {
				return "", flags, "ERR Unexpected flag in script shebang: " + f
			}
			if f == "no-writes" {
				flags.noWrites = true
			}
		}
	}
	return body[nl:], flags, ""
}
