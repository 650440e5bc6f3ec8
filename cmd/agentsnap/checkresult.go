package main

// A scenario's verdict: what check found, as the table, the other formats
// and the report show it.

import (
	"errors"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

// checkResult is one row of the table, and what the other formats and the
// report show of a scenario.
type checkResult struct {
	name, dir       string
	sessions, calls int
	verdict         string
	notes           []string
	status          string           // statusPass, statusFail or statusError
	pending         string           // the golden proposal waiting for review, if any
	problems        []string         // the full messages: the replay's report, the golden's
	first           string           // the most telling line; see firstDifference
	fix             string           // the command that fixes it
	seconds         float64          // how long the replay took
	page            *report.Scenario // when a report is written
	late            bool             // the deadline passed before its replay finished
	// unsafe are the lineage names of the fixture's logs (ids, parents,
	// call ids) that printable would escape: messages quote them raw.
	unsafe []string
}

// Scenario statuses of --format json and junit.
const (
	statusPass  = "pass"
	statusFail  = "fail"
	statusError = "error"
)

// judge sets the verdict of a replayed scenario from the replay o, its
// golden comparison g (updated: --update applied to a passing replay) and
// the growth check's problem: the table's word, the status, the problems
// in full, the most telling line and the command that fixes it.
func (r *checkResult) judge(o *judge.Outcome, g judge.GoldenResult, growth string, updated bool) {
	var problems []string
	if !o.Passed() {
		problems = append(problems, o.Report())
	}
	if g.Message != "" {
		problems = append(problems, g.Message)
	}
	if growth != "" {
		problems = append(problems, growth)
	}
	r.problems, r.status = problems, statusFail
	switch {
	case len(problems) == 0:
		r.status, r.verdict = statusPass, "ok"
		if g.Updated {
			r.verdict = "ok, golden updated"
		}
		return
	case o.Passed() && g.Message == "":
		r.verdict = "FAIL budget"
	case o.Passed():
		r.verdict = "FAIL golden"
	case onlyStale(o):
		// The logs replay as recorded: what fails is the playbook edited
		// since, which only a re-recording brings into the fixture.
		r.verdict = "FAIL playbook changed"
	case onlyRules(o):
		// The logs replay as recorded: what fails is what the recording
		// holds against what its category requires.
		r.verdict = "FAIL category"
	default:
		r.verdict = "FAIL replay"
	}
	var golden *string // the golden's text, to diff; nil for an update's message
	if b, err := o.Fixture.GoldenText(); err == nil && !updated {
		golden = new(string(b))
	}
	r.first, r.fix = firstDifference(o, g, golden), fixCommand(o)
	if judge.GoldenUnreadable(o.Fixture.Golden) != "" {
		// An update cannot replace it, and a re-recording would replace
		// it unread (a folder and all it holds): the message says to move
		// it away first.
		r.fix = ""
	}
	if r.first == "" { // only the budget failed: nothing to re-record
		r.first, r.fix = firstLine(growth), ""
	}
}

// onlyStale reports whether the replay fails only because playbook.json
// changed since the recording (Outcome.Stale).
func onlyStale(o *judge.Outcome) bool {
	return o.Stale != "" && o.Drift == nil && len(o.Differences) == 0 && len(o.RunErrors) == 0 && o.Consumption == nil && len(o.RuleViolations) == 0
}

// onlyRules reports whether the replay fails only on its category's
// rules (Outcome.RuleViolations).
func onlyRules(o *judge.Outcome) bool {
	return len(o.RuleViolations) > 0 && o.Stale == "" && o.Drift == nil && len(o.Differences) == 0 && len(o.RunErrors) == 0 && o.Consumption == nil
}

// setError records a scenario that could not be loaded or replayed; fx is
// nil when it could not be loaded. The message ends with r.fix, when set.
func (r *checkResult) setError(err error, fx *fixture.Fixture, page bool) {
	r.verdict = "ERROR"
	if r.fix != "" {
		err = judge.WithRecordCommand(err, r.fix)
	}
	msg := err.Error()
	r.status, r.problems, r.first = statusError, []string{msg}, firstLine(msg)
	if page {
		r.page = pageScenario(r, fx, nil)
	}
}

// shown escapes the scenario's folder and name wherever text mentions
// them (see printable), so a folder named with a newline or a colour
// cannot forge a line of the output.
func (r *checkResult) shown(text string) string {
	for _, s := range []string{r.dir, r.name} {
		if p := printable(s); p != s {
			text = strings.ReplaceAll(text, s, p)
		}
	}
	return escapeNames(text, r.unsafe)
}

// unprintableNames returns the session ids, parent ids and parent call
// ids of logs that printable would escape: a hand-edited header can hold
// a newline or a colour, and the replay's messages name sessions by them.
func unprintableNames(logs []*session.Log) []string {
	var out []string
	for _, l := range logs {
		for _, s := range []string{l.Header.ID, l.Header.ParentSession, l.Header.ParentCallID} {
			if printable(s) != s && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// errorFix returns the command that fixes the scenario in dir, which
// could not be loaded or replayed with err: re-recording it, where that
// mends it (judge.RecordMends) and the CLI records it (its reference
// runtime recorded it); else "", and the message says what to do.
func errorFix(dir string, err error) string {
	if !judge.RecordMends(dir, err) || referenceOnly(dir) != nil {
		return ""
	}
	return judge.RecordCommandFor(dir, judge.Options{Runtime: agent.Reference})
}

// fixCommand returns the command that fixes a failing scenario: re-record
// it when the replay itself fails, else update the golden; none when the
// replay depends on the schedule, or failed with an error re-recording
// does not mend (agentsnap.NotMended), which only a change to the agent
// fixes.
func fixCommand(o *judge.Outcome) string {
	if !o.Passed() {
		for _, err := range o.RunErrors {
			// The logs depend on the schedule: a re-recording records one
			// order of many, so no command fixes it (the problem says so).
			// An error a recording meets alike says what to do itself.
			var nm agentsnap.NotMended
			if errors.Is(err, judge.ErrScheduleDependent) || errors.As(err, &nm) {
				return ""
			}
		}
		return judge.RecordCommand(o)
	}
	return judge.UpdateCommand(o)
}
