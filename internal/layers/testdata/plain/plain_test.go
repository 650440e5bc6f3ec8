// Package plain is a user's plain go test that calls the harness and
// nothing else: its test binary must show no flag of a test framework the
// user did not import.
package plain

import (
	"testing"

	"github.com/agentsnap/agentsnap/harness"
)

func TestName(t *testing.T) {
	if got := harness.Name("fixtures/fork/x"); got != "fork/x" {
		t.Fatalf("harness.Name = %q", got)
	}
}
