// Package plainlog is a team's plain go test of one scenario, which the
// harness specs build and run as a binary of its own: what the harness logs
// there must point at this file's line, as a failure does, not at the
// harness's own files.
package plainlog

import (
	"os"
	"testing"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/harness"
)

func TestScenario(t *testing.T) {
	harness.Check(t, os.Getenv("PLAINLOG_FIXTURE"), harness.Options{Runtime: agent.Reference})
}
