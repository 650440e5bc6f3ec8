package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The flow of issue 13 as a user meets it: an answer of the playbook
// changes, the scenario is recorded again, the golden stays and a proposal
// waits; check fails until review accepts it.
var _ = Describe("changing a playbook answer", func() {
	BeforeEach(func() {
		// Recordings propose and replace goldens only outside CI.
		GinkgoT().Setenv("CI", "")
	})

	It("leaves the golden untouched and a pending proposal, which review --accept makes the golden", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		golden := filepath.Join(dir, fixture.GoldenFile)
		before, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred())
		replaceIn(filepath.Join(dir, fixture.PlaybookFile), `"text": "MARMALADE"`, `"text": "It is MARMALADE."`)

		r := cli(root, nil, "record", "fixtures/fork/codeword")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("the transcript changed: transcript.golden is kept"))
		Expect(r.stdout).To(ContainSubstring("review it with: go tool agentsnap review fixtures/fork/codeword"))
		Expect(os.ReadFile(golden)).To(Equal(before), "the golden is untouched")
		Expect(filepath.Join(dir, fixture.ProposalFile)).To(BeARegularFile())

		r = cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL golden$`))
		Expect(r.stdout).To(ContainSubstring("+    assistant: It is MARMALADE."))

		r = cli(root, nil, "review", "--accept", "fixtures")
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
		Expect(filepath.Join(dir, fixture.ProposalFile)).NotTo(BeAnExistingFile())
		Expect(readFile(golden)).To(ContainSubstring("assistant: It is MARMALADE."))

		r = cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(0), r.stdout)
	})

	It("replaces the golden at once with --replace-golden", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		replaceIn(filepath.Join(dir, fixture.PlaybookFile), `"text": "MARMALADE"`, `"text": "It is MARMALADE."`)
		r := cli(root, nil, "record", "fixtures/fork/codeword", "--replace-golden")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(filepath.Join(dir, fixture.ProposalFile)).NotTo(BeAnExistingFile())
		Expect(cli(root, nil, "check", "fixtures").code).To(Equal(0))
	})
})
