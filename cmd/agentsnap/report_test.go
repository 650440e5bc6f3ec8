package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap report of a failing replay beside a golden proposal", func() {
	It("shows it as failing, with the command that re-records it, not as a pending review", func() {
		root := fixtureCopy("spawn/one-child")
		breakLog(root)
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		golden := readFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(os.WriteFile(filepath.Join(dir, fixture.ProposalFile), []byte(golden+"PROPOSED\n"), 0o644)).To(Succeed())
		before := treeDigest(filepath.Join(root, "fixtures"))

		r := cli(root, nil, "report", "-o", "out.html")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("report: wrote out.html (1 scenario: 1 fail)\n"))
		page := readFile(filepath.Join(root, "out.html"))
		Expect(statuses(page)).To(Equal(map[string]string{"spawn/one-child": "fail"}))
		Expect(page).To(ContainSubstring("go tool agentsnap record " + dir))
		Expect(page).NotTo(ContainSubstring("a golden proposal waits for review"))
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before), "a report writes no fixture")
	})
})
