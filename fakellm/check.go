package fakellm

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/internal/english"
)

// Check is the consumption check, run when a replay is over. It returns
// nil when every recorded call was replayed and no call failed; otherwise
// one error that lists, all at once, every recorded session never called,
// every session that stopped early, every recorded tool result, MCP
// answer or token count a session that ran never asked for, and every call that failed
// during the replay (even those the agent swallowed), recorded tools'
// included. The error matches [ErrNotConsumed] when calls were left over,
// and the sentinel of each failed call ([ErrUnrecordedSession], [ErrScriptExhausted],
// [ErrPathMismatch], [ErrUnrecordedTool], [ErrToolDrift]).
//
// Check may be called any number of times, also while calls are running;
// it fits Ginkgo's DeferCleanup(drv.Check) as is.
func (d *Driver) Check() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var left []string
	sessions := 0 // those left names: a session may leave a line per result
	for _, r := range d.order {
		had := len(left)
		n := len(r.script.Entries)
		switch {
		case r.live == "" && n > 0:
			left = append(left, fmt.Sprintf("%s: never called (%d recorded %s)", r.describe(), n, english.Plural(n, "call")))
		case r.live == "" && len(r.script.Tools)+len(r.script.MCP)+len(r.script.Counts) > 0:
			left = append(left, fmt.Sprintf("%s: never called (%s)", r.describe(), r.recordedAnswers()))
		case r.live != "" && r.cursor < n:
			next := r.script.Entries[r.cursor]
			left = append(left, fmt.Sprintf("%s: live session %s used %d of %d recorded calls (the next was at %s)", r.describe(), r.live, r.cursor, n, next.where()))
		}
		if r.live != "" {
			left = append(left, r.unserved()...)
		}
		if len(left) > had {
			sessions++
		}
	}
	if len(left) == 0 && len(d.failures) == 0 && len(d.toolFailures) == 0 {
		return nil
	}
	return &checkError{left: left, sessions: sessions, failures: sortedErrors(d.failures), toolFailures: sortedErrors(d.toolFailures), advice: d.advice}
}

// sortedErrors returns the errors of failures in lineage order.
func sortedErrors(failures []failure) []error {
	failed := slices.Clone(failures)
	slices.SortStableFunc(failed, func(a, b failure) int {
		return cmp.Or(cmp.Compare(a.order, b.order), strings.Compare(a.sub, b.sub))
	})
	errs := make([]error, len(failed))
	for i, f := range failed {
		errs[i] = f.err
	}
	return errs
}

// checkError is the error of Check.
type checkError struct {
	left         []string
	sessions     int           // the sessions left names
	failures     []error       // model calls
	toolFailures []error       // recorded tools' calls and MCP requests
	advice       func() string // made when the message is read, outside d.mu (see Driver.advised)
}

func (e *checkError) Error() string {
	var b strings.Builder
	if len(e.left) > 0 {
		fmt.Fprintf(&b, "fakellm: %s: %d recorded %s not fully replayed — %s",
			ErrNotConsumed, e.sessions, english.Plural(e.sessions, "session"), e.advice())
		for _, l := range e.left {
			b.WriteString("\n  " + l)
		}
	}
	failed(&b, e.failures, "model %s failed during the replay:")
	failed(&b, e.toolFailures, "%s to a recorded tool, MCP server or token count could not be served during the replay:")
	return b.String()
}

// failed appends a paragraph of errs to b, if any: "fakellm: N " and what
// (with %s for "call" or "calls"), then an error a line.
func failed(b *strings.Builder, errs []error, what string) {
	if len(errs) == 0 {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "fakellm: %d "+what, len(errs), english.Plural(len(errs), "call"))
	for _, f := range errs {
		b.WriteString("\n  " + f.Error())
	}
}

// WithAdvice returns the error with advice in place of the driver's (the
// record command, or WithAdvice's text): for a replay that failed with an
// error re-recording does not mend, whose verdict points at that error.
func (e *checkError) WithAdvice(advice string) error {
	c := *e
	c.advice = func() string { return advice }
	return &c
}

// Unwrap makes errors.Is see ErrNotConsumed and each failure.
func (e *checkError) Unwrap() []error {
	out := make([]error, 0, len(e.failures)+len(e.toolFailures)+1)
	if len(e.left) > 0 {
		out = append(out, ErrNotConsumed)
	}
	out = append(out, e.failures...)
	return append(out, e.toolFailures...)
}

// recordedAnswers says what a session never called recorded besides model
// calls, each kind by its name: "1 recorded tool result, 2 MCP answers
// and 3 token counts".
func (r *replay) recordedAnswers() string {
	var kinds []string
	for _, k := range []struct {
		n    int
		word string
	}{{len(r.script.Tools), "tool result"}, {len(r.script.MCP), "MCP answer"}, {len(r.script.Counts), "token count"}} {
		if k.n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", k.n, english.Plural(k.n, k.word)))
		}
	}
	last := len(kinds) - 1
	if last == 0 {
		return strings.Replace(kinds[0], " ", " recorded ", 1)
	}
	return strings.Replace(strings.Join(kinds[:last], ", ")+" and "+kinds[last], " ", " recorded ", 1)
}
