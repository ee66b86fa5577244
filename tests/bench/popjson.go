package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// poppedJob is what the workloads need of a popped job. data is the JSON
// string's body as it came, escapes and all: only the mixed workload reads
// it, through data().
type poppedJob struct {
	Jid     string
	rawData string
}

// data is the job's data string, unescaped.
func (j poppedJob) data() string {
	if !strings.Contains(j.rawData, `\`) {
		return j.rawData
	}
	var s string
	if json.Unmarshal([]byte(`"`+j.rawData+`"`), &s) != nil {
		return ""
	}
	return s
}

// parsePop decodes pop's reply: a JSON array of jobs, or "{}" when the
// queue is empty (cjson encodes an empty table as an object). It scans
// for the two fields it needs rather than decoding through reflection:
// encoding/json cost the client more CPU and garbage per pop than the
// rest of the call, and the client shares the machine with the server.
func parsePop(r reply) ([]poppedJob, error) {
	s := r.str
	if s == "{}" || s == "[]" || r.nil {
		return nil, nil
	}
	i := skipSpace(s, 0)
	if i == len(s) || s[i] != '[' {
		return nil, notJobs(s)
	}
	var jobs []poppedJob
	for i++; ; i++ {
		var j poppedJob
		var ok bool
		if i, ok = scanJob(s, skipSpace(s, i), &j); !ok {
			return nil, notJobs(s)
		}
		jobs = append(jobs, j)
		if i = skipSpace(s, i); i == len(s) {
			return nil, notJobs(s)
		}
		if s[i] == ']' {
			break
		}
		if s[i] != ',' {
			return nil, notJobs(s)
		}
	}
	if skipSpace(s, i+1) != len(s) {
		return nil, notJobs(s)
	}
	return jobs, nil
}

func notJobs(s string) error { return fmt.Errorf("pop reply is not a job list: %.80q", s) }

// scanJob reads the object at s[i:] into j and returns the index after it.
func scanJob(s string, i int, j *poppedJob) (int, bool) {
	if i == len(s) || s[i] != '{' {
		return i, false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	for {
		end, ok := skipString(s, i)
		if !ok {
			return i, false
		}
		key := s[i+1 : end-1]
		if i = skipSpace(s, end); i == len(s) || s[i] != ':' {
			return i, false
		}
		from := skipSpace(s, i+1)
		if i, ok = skipValue(s, from); !ok {
			return i, false
		}
		if s[from] == '"' {
			switch key {
			case "jid":
				j.Jid = s[from+1 : i-1]
			case "data":
				j.rawData = s[from+1 : i-1]
			}
		}
		if i = skipSpace(s, i); i == len(s) {
			return i, false
		}
		switch s[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipSpace(s, i+1)
		default:
			return i, false
		}
	}
}

// skipValue returns the index just after the JSON value at s[i:].
func skipValue(s string, i int) (int, bool) {
	if i == len(s) {
		return i, false
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				end, ok := skipString(s, i)
				if !ok {
					return i, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	}
	start := i
	for i < len(s) && !strings.ContainsRune(",}] \t\r\n", rune(s[i])) {
		i++
	}
	return i, i > start
}

// skipString returns the index just after the JSON string at s[i:].
func skipString(s string, i int) (int, bool) {
	if i == len(s) || s[i] != '"' {
		return i, false
	}
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}
