package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a folder named on the command line that does not exist", func() {
	DescribeTable("exits 1, names it and says what to name instead",
		func(args ...string) {
			root := fixtureCopy("spawn/one-child")
			r := cli(root, nil, args...)
			Expect(r.code).To(Equal(1), r.stderr)
			Expect(r.stderr).To(HavePrefix("agentsnap " + args[0] + ": fixture: stat "))
			Expect(r.stderr).To(HaveSuffix(filepath.Join("fixtures", "spwan") + ": no such file or directory; name a scenario, category or fixtures folder that exists: fixtures/fork/codeword, fixtures/fork or fixtures/...\n"))
		},
		Entry("check", "check", "fixtures/spwan"),
		Entry("check, as a pattern", "check", "fixtures/spwan/..."),
		Entry("review", "review", "fixtures/spwan"),
		Entry("report", "report", "fixtures/spwan", "-o", "r.html"),
	)
})
