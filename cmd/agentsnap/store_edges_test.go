package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("record --store into a store an earlier recording filled", func() {
	// Every recording of a scenario creates the same session ids, so the
	// second one into the same side store cannot create its root: the
	// message must say why and what to do, not only "session already
	// exists".
	DescribeTable("says the store holds the session from an earlier run and what to do, before the agent runs",
		func(spec string) {
			root := fixtureCopy("spawn/one-child")
			r := cli(root, nil, "record", "fixtures/spawn/one-child", "--store", spec)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stderr).To(ContainSubstring("root turn 1"), "the progress of a recording that runs")
			r = cli(root, nil, "record", "fixtures/spawn/one-child", "--store", spec)
			Expect(r.code).NotTo(Equal(exitOK))
			Expect(r.stderr).To(ContainSubstring("agentsnap record: recorder: the side store (Options.Store, record's --store): it already holds 2 sessions (such as root), an earlier run's: the recording creates its sessions there; give it an empty one (a new path) or delete the old; nothing ran and the fixture is unchanged"))
			Expect(r.stderr).NotTo(ContainSubstring("root turn 1"), "the agent ran")
		},
		Entry("SQLite", "sqlite:rec.db"),
		Entry("JSONL", "jsonl:rec"),
	)
})
