package harness

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/internal/secret"
)

// Secrets in what a test shows. A developer replays with the real keys in
// the environment, and a test's output goes to CI logs: an agent that
// writes a key into a message, or a tool that echoes one, makes a drift, a
// log difference, a golden diff or an error that quotes it. Everything the
// harness reports goes through redacting (a testing.TB) or, for the Gomega
// matchers' failure messages, through the same set: the key variables, the
// base URL's credentials, the variables AGENTSNAP_SECRET_VARS names (see
// secret.AddEnv) and what the agent sent as a credential during the replay
// (the wire layer adds it to the set of the replay's context) show as
// [REDACTED], as in agentsnap serve's verdict.

// secretsOf returns the secrets to keep out of what is reported about o:
// those of the environment now, and those its replay gathered when Run
// made it (see runs).
func secretsOf(o *Outcome) *secret.Set {
	s := secret.FromEnv(os.Getenv)
	if r, ok := runs.Load(o); ok {
		s.Merge(r.(*run).secrets)
	}
	return s
}

// redacting returns t with every message it prints — failures, logs,
// skips — redacted with s.
func redacting(t testing.TB, s *secret.Set) testing.TB {
	return &redactingTB{TB: unwrapped(t), s: s}
}

type redactingTB struct {
	testing.TB
	s *secret.Set
}

// line is what t.Error(args...) prints, redacted: testing formats the
// arguments with fmt.Sprintln. Each method hands the text on to its own
// kind (Errorf to Errorf, ...), so a testing.TB of the user's that
// overrides one sees it.
func (r *redactingTB) line(args []any) string {
	return r.s.Redact(strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

func (r *redactingTB) printf(format string, args []any) string {
	return r.s.Redact(fmt.Sprintf(format, args...))
}

func (r *redactingTB) Error(args ...any) { r.TB.Helper(); r.TB.Error(r.line(args)) }
func (r *redactingTB) Errorf(format string, args ...any) {
	r.TB.Helper()
	r.TB.Errorf("%s", r.printf(format, args))
}
func (r *redactingTB) Fatal(args ...any) { r.TB.Helper(); r.TB.Fatal(r.line(args)) }
func (r *redactingTB) Fatalf(format string, args ...any) {
	r.TB.Helper()
	r.TB.Fatalf("%s", r.printf(format, args))
}
func (r *redactingTB) Log(args ...any) { r.TB.Helper(); r.TB.Log(r.line(args)) }
func (r *redactingTB) Logf(format string, args ...any) {
	r.TB.Helper()
	r.TB.Logf("%s", r.printf(format, args))
}
func (r *redactingTB) Skip(args ...any) { r.TB.Helper(); r.TB.Skip(r.line(args)) }
func (r *redactingTB) Skipf(format string, args ...any) {
	r.TB.Helper()
	r.TB.Skipf("%s", r.printf(format, args))
}

// unwrapped returns the testing.TB the test handed the harness.
func unwrapped(t testing.TB) testing.TB {
	if r, ok := t.(*redactingTB); ok {
		return r.TB
	}
	return t
}
