package qless

import (
	"fmt"

	"github.com/qlessd/qlessd/scripts"
)

// nativeScript is a script qlessd serves with its own qless: a client's
// build (profile set) or our printed script.
type nativeScript struct {
	Profile
	sha   string
	stats *scripts.AliasStats
}

// infoNative writes INFO's qless section: whether client scripts are served
// natively, and for each script qlessd can serve so, whether it is loaded
// and how its calls were answered: by a fast path, by our library, handed
// back to the script itself (errors) or, should it happen, an error our
// library had to phrase after writing (late).
func infoNative(field func(string, any), e *scripts.Engine, opts Options, native []nativeScript) {
	field("native_client_scripts", yesNo(opts.NativeClientScripts))
	field("scripts_cached", e.Cached())
	for _, n := range native {
		build, shipped := n.Build, n.Shipped
		if build == "" {
			build, shipped = "qlessd", "qlessd-script"
		}
		loaded := 0
		if e.Exists(n.sha) {
			loaded = 1
		}
		st := n.stats
		field("script_"+n.sha, fmt.Sprintf("loaded=%d,build=%s,shipped=%s,fast=%d,library=%d,handed_back=%d,late=%d",
			loaded, build, shipped, st.Fast.Load(), st.Library.Load(), st.HandedBack.Load(), st.Late.Load()))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
