package main

import (
	"testing"

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
