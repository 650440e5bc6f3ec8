package harness

import (
	"fmt"
	"strings"
	"testing"
)

// engineLogf returns the Logf the harness hands the engine — the
// recorder's and the replay's warnings and notes. t.Logf would head each
// line with the file:line of its caller, the engine's (recorder.go:352),
// a file the team never wrote: the engine links no testing, so it cannot
// mark itself a helper, and the team's test line is not known on the
// goroutine the engine logs from. For the testing package's own T, B and F
// the lines go to t.Output(), which adds no file:line, redacted as
// redactingTB redacts them; any other testing.TB gets them through its
// Logf, which GinkgoTB prints without one and a team's wrapper may
// override.
func engineLogf(t testing.TB) func(format string, args ...any) {
	redact := func(s string) string { return s }
	if r, ok := t.(*redactingTB); ok {
		redact = r.s.Redact
	}
	switch u := unwrapped(t).(type) {
	case *testing.T, *testing.B, *testing.F:
		return func(format string, args ...any) {
			// As testing's Log lays a line out: later lines indented.
			line := strings.TrimSuffix(redact(fmt.Sprintf(format, args...)), "\n")
			fmt.Fprint(u.Output(), strings.ReplaceAll(line, "\n", "\n    ")+"\n")
		}
	}
	return t.Logf
}
