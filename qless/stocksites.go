package qless

import (
	"strings"

	"github.com/qlessd/qlessd/scripts"
	lua "github.com/yuin/gopher-lua"
)

// Some calls fail part way, after qless has written: a job popped whose
// hash is gone, a history entry whose details are not an object, a lock
// without a worker. Serving a client's build, the library raises such an
// error as a site and a message (late_error in base.lua), and the reply
// names the line of the build's own source where that build fails: the
// first line holding the site's code after the function it sits in.
// Every build in Profiles has these lines; their numbers differ.
type stockSite struct {
	function string // the line opening the function the site is in
	code     string // text on the failing line
}

var stockSites = map[string]stockSite{
	"history-dict":             {"function QlessJob:history(", "dict['when'] = value[1]"},
	"pop-unpack":               {"function QlessQueue:pop(", "state = unpack(job:data('state'))"},
	"locks-worker":             {"function QlessQueue:invalidate_locks(", "'ql:w:' .. worker .. ':jobs'"},
	"unfail-data":              {"function QlessQueue:unfail(", "QlessJob.ns .. data.jid"},
	"complete-depends-length":  {"function QlessJob:complete(", "(#depends == 0)"},
	"complete-depends-ipairs":  {"function QlessJob:complete(", "ipairs(depends)"},
	"cancel-failed":            {"function Qless.cancel(", "'failed', failed - 1)"},
	"put-depends-length":       {"function QlessQueue:put(", "if #depends > 0 then"},
	"put-depends-ipairs":       {"function QlessQueue:put(", "for _, d in ipairs(depends)"},
	"put-tag-concat":           {"function QlessQueue:put(", "'ql:t:' .. tag, now, jid)"},
	"put-tags-ipairs":          {"function QlessQueue:put(", "for i, tag in ipairs(tags) do"},
	"put-depends-ipairs-again": {"function QlessQueue:put(", "for i, j in ipairs(depends) do"},
	"recur-tags-ipairs":        {"function QlessQueue:check_recurring(", "for i, tag in ipairs(_tags) do"},
	"recur-tag-concat":         {"function QlessQueue:check_recurring(", "redis.call('zadd', 'ql:t:' .. tag, now, child_jid)"},
	"locks-grace":              {"function QlessQueue:invalidate_locks(", "if grace_period <= 0 then"},
}

// phraseLate is the scripts.LatePhrase of the builds: it words a site
// error ({site =, message =}) at the build's line for the site.
func phraseLate(sc scripts.ScriptSource, obj lua.LValue) string {
	t, ok := obj.(*lua.LTable)
	if !ok {
		return ""
	}
	msg, ok2 := t.RawGetString("message").(lua.LString)
	if ok2 && t.RawGetString("qlessd_refusal") == lua.LTrue {
		// A limit of qlessd's (beyond.lua): the client's script has none.
		return "ERR " + string(msg)
	}
	site, ok1 := t.RawGetString("qlessd_site").(lua.LString)
	if !ok1 || !ok2 {
		return ""
	}
	line := siteLine(sc.Body, stockSites[string(site)])
	if line == 0 {
		return ""
	}
	return scripts.RuntimeErrorReply(sc.SHA, line, string(msg))
}

// siteLine is the 1-based line of s in body, 0 when it is not there.
func siteLine(body string, s stockSite) int {
	if s.function == "" {
		return 0
	}
	in := false
	for i, line := range strings.Split(body, "\n") {
		if !in {
			in = strings.HasPrefix(line, s.function)
			continue
		}
		if strings.Contains(line, s.code) {
			return i + 1
		}
		if strings.HasPrefix(line, "function ") {
			return 0
		}
	}
	return 0
}
