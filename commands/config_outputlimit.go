package commands

import (
	"strconv"
	"strings"
)

// OutputLimit is one client class's client-output-buffer-limit, in bytes
// and seconds.
type OutputLimit struct {
	Hard, Soft, SoftSeconds uint64
}

// outputClasses are the classes CONFIG GET lists, as Redis 7.0 names them.
var outputClasses = []string{"normal", "slave", "pubsub"}

// parseOutputLimits reads "<class> <hard> <soft> <soft seconds>..." over
// base (nil for none), refusing the whole value if any part is wrong, with
// the reason Redis gives.
func parseOutputLimits(v string, base map[string]OutputLimit) (map[string]OutputLimit, string) {
	f := strings.Fields(v)
	if len(f) == 0 || len(f)%4 != 0 {
		return nil, "Wrong number of arguments in buffer limit configuration."
	}
	out := map[string]OutputLimit{}
	for k, l := range base {
		out[k] = l
	}
	for i := 0; i < len(f); i += 4 {
		class := strings.ToLower(f[i])
		if class == "replica" {
			class = "slave"
		}
		if class != "normal" && class != "slave" && class != "pubsub" {
			return nil, "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := ParseMemory(f[i+1])
		soft, ok2 := ParseMemory(f[i+2])
		secs, ok3 := ParseInt([]byte(f[i+3])) // seconds take no unit
		if !ok1 || !ok2 || !ok3 || secs < 0 {
			return nil, "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		out[class] = OutputLimit{Hard: hard, Soft: soft, SoftSeconds: uint64(secs)}
	}
	return out, ""
}

// formatOutputLimits writes limits as CONFIG GET replies with them; a
// class missing from a partial value (CONFIG SET's) is left out.
func formatOutputLimits(limits map[string]OutputLimit) string {
	var words []string
	for _, class := range outputClasses {
		if l, ok := limits[class]; ok {
			words = append(words, class, strconv.FormatUint(l.Hard, 10),
				strconv.FormatUint(l.Soft, 10), strconv.FormatUint(l.SoftSeconds, 10))
		}
	}
	return strings.Join(words, " ")
}

// PubSubOutputLimit is the pubsub class of a checked
// client-output-buffer-limit value.
func PubSubOutputLimit(v string) OutputLimit {
	limits, _ := parseOutputLimits(v, nil)
	return limits["pubsub"]
}
