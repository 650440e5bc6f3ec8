package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap check --report FILE that cannot be written", func() {
	It("exits 1 and names --report, the flag check has, not report's -o", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "fixtures", "--report", "missing/out.html")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(HavePrefix("agentsnap check: writing the report: write " + filepath.Join(root, "missing/out.html")))
		Expect(r.stderr).To(ContainSubstring("; give --report a file in a folder that exists and is writable"))
		Expect(r.stderr).NotTo(ContainSubstring("give -o"))
	})
})
