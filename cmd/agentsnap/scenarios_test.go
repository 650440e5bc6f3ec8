package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// check, report and review look under ./fixtures when given no folder; a
// module whose scenarios live elsewhere is told to name its folder.
var _ = Describe("the default fixtures folder, missing", func() {
	DescribeTable("says to name the folder, the one under testdata when there is one",
		func(testdata bool, args ...string) {
			dir := GinkgoT().TempDir()
			want := "DIR/..."
			if testdata {
				Expect(os.MkdirAll(filepath.Join(dir, "testdata", "fixtures", "mixed"), 0o755)).To(Succeed())
				want = "testdata/fixtures/..."
			}
			r := cli(dir, nil, args...)
			Expect(r.code).To(Equal(1), r.stderr)
			Expect(r.stderr).To(Equal("agentsnap " + args[0] + ": no ./fixtures folder here, the default; name the folder your scenarios are in: go tool agentsnap " + args[0] + " " + want + "\n"))
		},
		Entry("check", false, "check"),
		Entry("check, beside testdata/fixtures", true, "check"),
		Entry("review", true, "review", "--accept"),
		Entry("report", true, "report", "-o", "r.html"),
	)
})
