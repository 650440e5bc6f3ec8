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
	DescribeTable("says the store holds the session from an earlier run and what to do",
		func(spec, where string) {
			root := fixtureCopy("spawn/one-child")
			r := cli(root, nil, "record", "fixtures/spawn/one-child", "--store", spec)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			r = cli(root, nil, "record", "fixtures/spawn/one-child", "--store", spec)
			Expect(r.code).NotTo(Equal(exitOK))
			Expect(r.stderr).To(ContainSubstring(where))
			Expect(r.stderr).To(ContainSubstring("session already exists: the side store holds session root from an earlier run; give the recording an empty one (a new path) or delete the old; the fixture is unchanged"))
		},
		Entry("SQLite", "sqlite:rec.db", "rec.db"),
		Entry("JSONL", "jsonl:rec", "root.jsonl"),
	)
})
