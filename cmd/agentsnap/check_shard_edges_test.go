package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("check --shard of a shard that holds no scenario, in json or junit", func() {
	It("says an empty shard on stderr when stdout is json or junit", func() {
		root := fixtureCopy("fork/codeword")
		for _, format := range []string{"json", "junit"} {
			r := cli(root, nil, "check", "--shard", "1/4", "--format", format)
			Expect(r.code).To(Equal(exitOK), format)
			Expect(r.stderr).To(Equal("agentsnap check: shard 1/4 holds none of the 1 scenario\n"), format)
			Expect(r.stdout).NotTo(ContainSubstring("nothing to check"), format)
		}
	})
})
