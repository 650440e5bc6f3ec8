package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("record --only-changed of a fixture recorded from a checkout with CRLF line endings", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "") // a recording
	})

	// Before CRLF counted as LF, a recording there held the digest of the
	// playbook's CRLF bytes: check takes that playbook as unchanged, and
	// so must the re-recording of only what changed.
	It("keeps what matches, instead of refusing the playbook as changed since the recording", func() {
		root, dir := crlfRecordedCheckout()

		r := cli(root, nil, "record", dir, "--only-changed")
		Expect(r.stderr).NotTo(ContainSubstring("changed since the recording"))
		Expect(r.code).To(Equal(exitOK), r.stderr)
	})
})
