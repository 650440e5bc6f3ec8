package harness_test

import (
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("-record from a test, and the secrets it cannot check", Label("secrets"), func() {
	It("warns that a key variable's value too short to tell from text is not checked, as the recorder does", func() {
		dir := copyFixture("fork/codeword")
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "OPENAI_API_KEY": "dummy"})
		t := &captureTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(BeEmpty())
		Expect(strings.Join(t.logs, "\n")).To(ContainSubstring("the value of OPENAI_API_KEY is shorter than 8 bytes, too short to tell from ordinary text: the recording is not checked for it"))
	})
})
