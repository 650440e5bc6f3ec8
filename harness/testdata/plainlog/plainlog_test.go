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
	dir := os.Getenv("PLAINLOG_FIXTURE")
	if dir == "" {
		// ginkgo -r runs every test package it finds, testdata's too.
		t.Skip("run by harness/logline_test.go, which names the fixture in PLAINLOG_FIXTURE")
	}
	harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
}
