package main

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAgentsnap(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "agentsnap")
}

// The CLI reads CI and AGENTSNAP_FORCE_UPDATE from the process, as judge,
// fixture and the harness do (fixture.WritesRefused), never from a spec's
// env map (cli refuses them there). Its specs run as on a developer's
// machine, where recording, check --update and review write, also on a CI
// machine that sets CI=true; a spec of CI's refusals sets CI itself, with
// GinkgoT().Setenv, after this.
var _ = BeforeEach(func() {
	GinkgoT().Setenv("CI", "")
	GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
})

// Specs that see serve end its live MCP sessions (a DELETE each) run serve
// in this process, under the race detector, on a machine other suites
// load: a DELETE to a server that answers at once could miss the 100 ms
// bound there, and the spec would see too few requests. The bound itself
// is a promise of the binary, held by serve_mcp_exit_test.go, which runs
// it as a child process and is not affected by this.
var _ = BeforeEach(func() {
	wait := mcpEndWait
	mcpEndWait = 30 * time.Second
	DeferCleanup(func() { mcpEndWait = wait })
})
