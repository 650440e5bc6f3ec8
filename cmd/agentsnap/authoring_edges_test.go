package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("new, for an agent in another process", func() {
	It("says how serve records the scenario, beside record and the tests", func() {
		r := cli(GinkgoT().TempDir(), nil, "new", "spawn/desk")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("go tool agentsnap serve fixtures/spawn/desk --record --runtime NAME   with an agent in another process, run against the URL serve prints"))
	})
})

var _ = Describe("agentsnap record of a scenario a user's test recorded with an unnamed runtime", func() {
	It("refuses it, saying to re-record it from the test, and writes nothing", func() {
		dir := GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "spawn/x").code).To(Equal(exitOK))
		Expect(cli(dir, nil, "record", "fixtures/spawn/x").code).To(Equal(exitOK))
		sdir := filepath.Join(dir, "fixtures/spawn/x")
		sc, err := scenario.Load(sdir)
		Expect(err).NotTo(HaveOccurred())
		// What -record writes for a RuntimeFunc: no runtime name, the tests' by.
		sc.Recorded.Runtime, sc.Recorded.By = "", recorder.ByTests
		Expect(sc.Save(sdir)).To(Succeed())
		before := treeDigest(sdir)

		r := cli(dir, nil, "record", "fixtures/spawn/x")
		Expect(r.code).To(Equal(exitBadData), r.stdout)
		Expect(r.stderr).To(ContainSubstring(`was recorded from a test (scenario.json recorded.by "agentsnap (go test)") by a runtime without a name`))
		Expect(r.stderr).To(ContainSubstring("-record='^spawn/x$'"))
		Expect(treeDigest(sdir)).To(Equal(before))
	})
})
