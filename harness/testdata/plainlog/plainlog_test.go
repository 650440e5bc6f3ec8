// Package plainlog is a team's plain go test of one scenario, which the
// harness specs build and run as a binary of its own: what the harness logs
// there must point at this file's line, as a failure does, not at the
// harness's own files.
package plainlog

import (
	"os"
	"testing"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
)

func TestScenario(t *testing.T) {
	dir := os.Getenv("PLAINLOG_FIXTURE")
	if dir == "" {
		// ginkgo -r runs every test package it finds, testdata's too.
		t.Skip("run by harness/logline_test.go, which names the fixture in PLAINLOG_FIXTURE")
	}
	var rt agentsnap.Runtime = agent.Reference
	if w := os.Getenv("PLAINLOG_WARNING"); w != "" {
		rt = warning{Runtime: rt, text: w}
	}
	harness.Check(t, dir, harness.Options{Runtime: rt})
}

// warning is the reference runtime with a scenario check that warns, as a
// team's runtime warns about a setting it ignores, quoting it: the
// recorder and the replay log it.
type warning struct {
	agentsnap.Runtime
	text string
}

func (w warning) Name() string { return agentsnap.ReferenceName }
func (w warning) Validate(*scenario.Scenario) ([]string, error) {
	return []string{w.text}, nil
}
