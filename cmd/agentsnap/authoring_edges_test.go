package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("new, for an agent in another process", func() {
	It("says how serve records the scenario, beside record and the tests", func() {
		r := cli(GinkgoT().TempDir(), nil, "new", "spawn/desk")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("go tool agentsnap serve fixtures/spawn/desk --record --runtime NAME   with an agent in another process, run against the URL serve prints"))
	})
})
