package dashboard

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/qlessd/qlessd/internal/cronsched"
)

// Job is a job as QLESS get and multiget reply it.
type Job struct {
	JID          string        `json:"jid"`
	Klass        string        `json:"klass"`
	State        string        `json:"state"`
	Queue        string        `json:"queue"`
	Worker       string        `json:"worker"`
	Tracked      bool          `json:"tracked"`
	Priority     float64       `json:"priority"`
	Expires      float64       `json:"expires"`
	Retries      int           `json:"retries"`
	Remaining    int           `json:"remaining"`
	Data         string        `json:"data"`
	Tags         strList       `json:"tags"`
	History      []History     `json:"history"`
	Failure      Failure       `json:"failure"`
	SpawnedFrom  stringOrFalse `json:"spawned_from_jid"`
	Dependents   strList       `json:"dependents"`
	Dependencies strList       `json:"dependencies"`
	// Throttles are those the job was put with (its queue's own is not
	// listed); WaitingFor, which the dashboard adds, is the one a
	// throttled job waits for.
	Throttles  strList `json:"throttles,omitempty"`
	WaitingFor string  `json:"waiting_for,omitempty"`
}

// Badge is the state the pages show: qless keeps a running job "running"
// after its lock expired (until a pop hands it to another worker or it
// times out), and such a job is stalled; the queue's stalled tab
// (QLESS jobs stalled) lists the same jobs.
func (j Job) Badge() string {
	if j.State == "running" && j.Expires > 0 && j.Expires < float64(time.Now().UnixNano())/1e9 {
		return "stalled"
	}
	return j.State
}

// History is one entry of a job's history: when, what and the details
// qless recorded with it (queue, worker, group...).
type History struct {
	When    float64        `json:"when"`
	What    string         `json:"what"`
	Details map[string]any `json:"details,omitempty"`
}

func (h *History) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	h.When, _ = m["when"].(float64)
	h.What, _ = m["what"].(string)
	delete(m, "when")
	delete(m, "what")
	if len(m) > 0 {
		h.Details = m
	}
	return nil
}

// DetailText is the details as "key: value" pairs in key order.
func (h History) DetailText() string {
	keys := make([]string, 0, len(h.Details))
	for k := range h.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(h.Details[k])
		parts[i] = k + ": " + strings.Trim(string(b), `"`)
	}
	return strings.Join(parts, ", ")
}

// Failure is why a failed job failed; qless stores {} for none.
type Failure struct {
	Group   string  `json:"group,omitempty"`
	Message string  `json:"message,omitempty"`
	When    float64 `json:"when,omitempty"`
	Worker  string  `json:"worker,omitempty"`
}

// Recurring is a recurring job as QLESS recur.get replies it.
type Recurring struct {
	JID      string  `json:"jid"`
	Klass    string  `json:"klass"`
	State    string  `json:"state"`
	Queue    string  `json:"queue"`
	Priority float64 `json:"priority"`
	Interval float64 `json:"interval"`
	Retries  int     `json:"retries"`
	Count    int     `json:"count"`
	Data     string  `json:"data"`
	Tags     strList `json:"tags"`
	Backlog  int     `json:"backlog"`
	// NextRun is when the next job is due (unix seconds), the run it had
	// coming when Paused; both are read from its score in the queue's
	// -recur set (schedule), which recur.get does not reply.
	NextRun float64 `json:"next_run"`
	Paused  bool    `json:"paused"`

	// A recurring job on a cron schedule (qlessd's recur ... cron) has
	// its expression, timezone and next run.
	Cron     string  `json:"cron,omitempty"`
	Timezone string  `json:"timezone,omitempty"`
	Next     float64 `json:"next,omitempty"`
}

// NextRuns are a cron recurring job's next five runs, from its next one,
// in its timezone and in UTC; none for an interval one or a schedule that
// fails to parse.
func (r Recurring) NextRuns() []string {
	if r.Cron == "" || r.Next <= 0 {
		return nil
	}
	s, err := cronsched.Parse(r.Cron, r.Timezone)
	if err != nil {
		return nil
	}
	var out []string
	for _, at := range s.Runs(r.Next, 5) {
		t := time.Unix(int64(at), 0)
		out = append(out, t.In(s.Location()).Format("Mon 2006-01-02 15:04 MST")+" ("+t.UTC().Format("15:04 UTC")+")")
	}
	return out
}

// QueueCounts is one queue's entry of QLESS queues.
type QueueCounts struct {
	Name      string `json:"name"`
	Waiting   int64  `json:"waiting"`
	Stalled   int64  `json:"stalled"`
	Running   int64  `json:"running"`
	Scheduled int64  `json:"scheduled"`
	Depends   int64  `json:"depends"`
	Recurring int64  `json:"recurring"`
	Paused    bool   `json:"paused"`
	// Throttled are the jobs waiting for a full throttle: QLESS queues
	// names them only when there are some, the dashboard always.
	Throttled int64 `json:"throttled"`
	// Rated are the waiting jobs a pop would pass over for a rate with no
	// room (counted as waiting too): QLESS queues names them only when
	// there are some, the dashboard always.
	Rated int64 `json:"rated"`
}

// Count returns the number of jobs in state.
func (q QueueCounts) Count(state string) int64 {
	switch state {
	case "waiting":
		return q.Waiting
	case "running":
		return q.Running
	case "stalled":
		return q.Stalled
	case "scheduled":
		return q.Scheduled
	case "depends":
		return q.Depends
	case "recurring":
		return q.Recurring
	case "throttled":
		return q.Throttled
	case "rated":
		return q.Rated
	}
	return 0
}

// Worker is one entry of QLESS workers, with when it was last seen.
type Worker struct {
	Name     string  `json:"name"`
	Jobs     int64   `json:"jobs"`
	Stalled  int64   `json:"stalled"`
	LastSeen float64 `json:"last_seen,omitempty"`
}

// Stat is one of QLESS stats' wait or run statistics for a day.
type Stat struct {
	Count     int64     `json:"count"`
	Mean      float64   `json:"mean"`
	Std       float64   `json:"std"`
	Histogram []float64 `json:"histogram"`
}

// Stats is QLESS stats for a queue and day.
type Stats struct {
	Retries  int64 `json:"retries"`
	Failed   int64 `json:"failed"`
	Failures int64 `json:"failures"`
	Wait     Stat  `json:"wait"`
	Run      Stat  `json:"run"`
}

// FailedGroup is a failure group and how many jobs are in it.
type FailedGroup struct {
	Group string `json:"group"`
	Count int64  `json:"count"`
}

// strList is a JSON list of strings that qless (through cjson) writes as
// {} when empty.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	if string(b) == "{}" {
		*l = strList{}
		return nil
	}
	var s []string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = s
	return nil
}

func (l strList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(l))
}

// jobList is a JSON list of jobs, {} when empty.
type jobList []Job

func (l *jobList) UnmarshalJSON(b []byte) error {
	if string(b) == "{}" {
		*l = jobList{}
		return nil
	}
	var s []Job
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = s
	return nil
}

// stringOrFalse is spawned_from_jid: a jid or false.
type stringOrFalse string

func (s *stringOrFalse) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = stringOrFalse(v)
	}
	return nil
}

// LastQueue is the queue the job was last put in: its queue while it has
// one, else (qless clears it when a job completes) the newest put in its
// history that names one.
func (j Job) LastQueue() string {
	if j.Queue != "" {
		return j.Queue
	}
	for i := len(j.History) - 1; i >= 0; i-- {
		if q, ok := j.History[i].Details["q"].(string); ok && j.History[i].What == "put" {
			return q
		}
	}
	return ""
}
