package judge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
)

// Outcome is the result of replaying one fixture.
type Outcome struct {
	Fixture     *fixture.Fixture
	Replayed    []*session.Log // in lineage order
	Transcript  string         // rendered from the replayed logs
	Calls       int            // model calls replayed (session.ModelCalls of every replayed log)
	Drift       *Drift         // the first request, recorded tool's call or token count that differs from the recording, or nil
	Differences []Difference   // the first difference of each session that differs
	RunErrors   []error        // the runtime's error: a call that could not start, a store that failed
	Consumption error          // the replay driver's teardown check
	// RuleViolations lists what the scenario's category requires and its
	// recording lacks (CheckCategory), such as a fork/ scenario without a
	// fork child.
	RuleViolations []string
	// Notes are the replay driver's remarks, such as children routed by
	// first-call order because their logs name no creating call.
	Notes []string
	// Warnings are the scenario's and the runtime's warnings about its
	// settings, such as a misspelled member that is ignored.
	Warnings []string
	// Stale says why the recording is out of date although it replays:
	// playbook.json changed since it was recorded. "" when it is not.
	Stale string

	driver   *fakellm.Driver
	prepared *prepared // what the fixture's other replays may share
	// counted holds the model calls of replayed logs known without
	// counting them: a session that replayed as recorded makes the
	// recording's (judgeKept).
	counted map[*session.Log]int
	// seen is what the replay's store saw of each session as it was
	// written, nil when it was not watched (seenStore).
	seen     *seenStore
	commands commands
	// secrets is the set of the replay's context (secret.FromContext),
	// which the wire layer adds the agent's credentials to: a user's test
	// prints Report and Err itself, and an agent that wrote a key into a
	// message would show it there.
	secrets *secret.Set
}

// ErrMismatch is wrapped by Outcome.Err.
var ErrMismatch = errors.New("replay does not match the recording")

// Passed reports whether the replay matches the recording.
func (o *Outcome) Passed() bool {
	return o.Drift == nil && len(o.Differences) == 0 && len(o.RunErrors) == 0 && o.Consumption == nil && len(o.RuleViolations) == 0 && o.Stale == ""
}

// Err returns nil when the replay matches the recording, else an error
// whose message is Report.
func (o *Outcome) Err() error {
	if o.Passed() {
		return nil
	}
	if o.rulesOnly() {
		return rulesError{o.Report()}
	}
	return fmt.Errorf("%w:\n%s", ErrMismatch, o.Report())
}

// rulesOnly reports whether the one thing wrong is the recording's rules
// (RuleViolations): the replay itself matches the recording.
func (o *Outcome) rulesOnly() bool {
	return len(o.RuleViolations) > 0 && o.Drift == nil && len(o.Differences) == 0 && len(o.RunErrors) == 0 && o.Consumption == nil && o.Stale == ""
}

// rulesError is Outcome.Err of a replay that fails on its rules only: it
// is an ErrMismatch for callers that ask, but does not open with "replay
// does not match the recording", which it does.
type rulesError struct{ report string }

func (e rulesError) Error() string        { return "the recording breaks its rules:\n" + e.report }
func (e rulesError) Is(target error) bool { return target == ErrMismatch }

// Report explains a failed replay, most telling first: request drift (the
// agent now sends something else), then the replay driver's verdict (calls
// it could not serve, naming the mis-routed session, and recorded calls
// never replayed), then the first difference of each log. It ends with
// what to do. The secrets a harness replay gathered (the key variables,
// what the agent sent as a credential) show as [REDACTED], so does Err.
func (o *Outcome) Report() string { return o.secrets.Redact(o.report()) }

func (o *Outcome) report() string {
	if o.Passed() {
		n := len(o.Replayed)
		return fmt.Sprintf("%s: replay matches the recording (%d %s, %d model %s)", o.Fixture.Name, n, english.Plural(n, "session"), o.Calls, english.Plural(o.Calls, "call"))
	}
	var b strings.Builder
	if o.rulesOnly() {
		// What failed is the rules, not the replay: say so first.
		fmt.Fprintf(&b, "%s: the recording in %s breaks %d %s of category %s (its replay matches it)\n", o.Fixture.Name, o.Fixture.Dir, len(o.RuleViolations), english.Plural(len(o.RuleViolations), "rule"), o.Fixture.Category())
	} else {
		fmt.Fprintf(&b, "%s: the replay does not match the recording in %s\n", o.Fixture.Name, o.Fixture.Dir)
	}
	switch {
	case o.Drift != nil && o.Drift.Tool != "":
		fmt.Fprintf(&b, "\ntool drift: %s\n", o.Drift)
		b.WriteString("  The agent no longer calls the recorded tool as it did, so the recorded result does not belong to the call.\n")
	case o.Drift != nil && o.Drift.Count > 0:
		fmt.Fprintf(&b, "\ntoken count drift: %s\n", o.Drift)
		b.WriteString("  The agent no longer counts the tokens of what was recorded, where it was recorded, so the recorded counts do not belong to it.\n")
	case o.Drift != nil:
		fmt.Fprintf(&b, "\nrequest drift: %s\n", o.Drift)
		b.WriteString("  The agent no longer sends what was recorded, so the recorded answers do not belong to it.\n")
	}
	// The replay driver keeps every call it could not serve, so its check
	// already explains calls that could not start; list the rest.
	var runErrs []error
	for _, e := range o.RunErrors {
		if o.Consumption == nil || !servedBy(e) {
			runErrs = append(runErrs, e)
		}
	}
	if o.Consumption != nil {
		fmt.Fprintf(&b, "\nreplay driver:\n  %s\n", indent(o.Consumption.Error()))
	}
	if len(runErrs) > 0 {
		b.WriteString("\nreplay errors:\n")
		for _, e := range runErrs {
			fmt.Fprintf(&b, "  %s\n", indent(e.Error()))
		}
	}
	if len(o.Differences) > 0 {
		b.WriteString("\nlog differences [golden = the fixture, replay = this run]:\n")
		for _, d := range o.Differences {
			fmt.Fprintf(&b, "  %s\n", indent(d.String()))
		}
	}
	if o.Stale != "" {
		fmt.Fprintf(&b, "\nstale recording:\n  %s\n", o.Stale)
	}
	if len(o.RuleViolations) > 0 {
		fmt.Fprintf(&b, "\ncategory %s:\n", o.Fixture.Category())
		for _, v := range o.RuleViolations {
			fmt.Fprintf(&b, "  %s\n", indent(v))
		}
	}
	if len(o.Notes) > 0 {
		b.WriteString("\nreplay notes:\n")
		for _, n := range o.Notes {
			fmt.Fprintf(&b, "  %s\n", indent(n))
		}
	}
	if diverged, only := o.onlyScheduleDependent(); only {
		if diverged {
			b.WriteString("\nThe recording is not at fault: the agent writes its logs in an order that depends on when its\nconcurrent work finishes. Record tool results in the order of the calls, whatever order they finish in.\n")
		} else {
			b.WriteString("\nThe recording is not at fault: the agent fails under some orders of its concurrent work only.\nReplay the failing schedule alone, with the command above, to see why.\n")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "\n%s\n", o.recordAdvice(RecordCommand(o)))
	return b.String()
}

// recordAdvice is the advice a failed replay ends with: re-record with
// cmd if the change is intended. When the logs depend on the schedule, the
// search above already said that re-recording does not help, so the
// advice says to fix the order first instead of contradicting it. When a
// run error is one re-recording does not mend (agentsnap.NotMended), it
// points at that error's own advice. With Hints.Fresh it is that: the
// recording was made moments ago.
func (o *Outcome) recordAdvice(cmd string) string {
	if o.commands.Fresh != "" {
		return o.commands.Fresh
	}
	if o.rulesOnly() {
		// Nothing changed since the recording: recording the same path
		// again breaks the same rules.
		return "Once the agent, or the scenario's prompts or playbook, takes a path that keeps the rules above, re-record the scenario:\n  " + cmd
	}
	if o.notMended() {
		// The run fails the same way while recording: the error's own
		// advice is the one that helps.
		return "Re-recording would not mend this (the run fails the same way while recording): do what the replay error says, then run again."
	}
	for _, e := range o.RunErrors {
		var se *scheduleError
		if errors.As(e, &se) && se.diverged {
			return "Re-recording now would record one order of many (see above). Once the agent writes its logs in the same order\nunder every schedule, if the replay still differs and the change is intended, re-record the scenario:\n  " + cmd
		}
	}
	advice := "If the change is intended, re-record the scenario:\n  " + cmd
	if only := o.commands.recordOnlyChanged(o.Fixture); only != "" {
		advice += "\nor ask the live model only from each session's first changed call, the calls before it replayed from the recording:\n  " + only
	}
	return advice
}

// notMended reports whether a run error is one that re-recording does
// not mend (agentsnap.NotMended), such as a call to an endpoint the wire
// layer does not serve.
func (o *Outcome) notMended() bool {
	for _, e := range o.RunErrors {
		var nm agentsnap.NotMended
		if errors.As(e, &nm) {
			return true
		}
	}
	return false
}

// onlyScheduleDependent reports whether the one thing wrong is that
// replays under other schedules than the replay's own failed, and whether
// they wrote other logs than it (diverged) or only failed otherwise.
func (o *Outcome) onlyScheduleDependent() (diverged, only bool) {
	if o.Drift != nil || len(o.Differences) > 0 || o.Consumption != nil || len(o.RuleViolations) > 0 || o.Stale != "" || len(o.RunErrors) == 0 {
		return false, false
	}
	for _, e := range o.RunErrors {
		var se *scheduleError
		if !errors.As(e, &se) {
			return false, false
		}
		diverged = diverged || se.diverged
	}
	return diverged, true
}

// servedBy reports whether a runtime's error is a replay driver's refusal
// that the consumption check lists already — whatever runtime wrapped it
// (with %w, as it must).
func servedBy(err error) bool {
	return errors.Is(err, fakellm.ErrUnrecordedSession) ||
		errors.Is(err, fakellm.ErrScriptExhausted) || errors.Is(err, fakellm.ErrPathMismatch) ||
		errors.Is(err, fakellm.ErrUnrecordedTool) || errors.Is(err, fakellm.ErrToolDrift)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }
