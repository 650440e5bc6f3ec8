package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap record and the secrets it cannot check", Label("secrets"), func() {
	It("warns that a key variable's value too short to tell from text is not checked, as README says", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, map[string]string{"OPENAI_API_KEY": "dummy"}, "record", "fixtures/fork/codeword")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stderr).To(ContainSubstring("agentsnap record: warning: the value of OPENAI_API_KEY is shorter than 8 bytes, too short to tell from ordinary text: the recording is not checked for it"))
	})
})

var _ = Describe("agentsnap record with AGENTSNAP_SECRET_VARS", Label("secrets"), func() {
	It("refuses a recording that holds the value of a variable it names, naming the variable, never the value", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, map[string]string{"AGENTSNAP_SECRET_VARS": "PROJECT_CODEWORD", "PROJECT_CODEWORD": "MARMALADE"}, "record", "fixtures/fork/codeword")
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("refusing to save: a secret appears in the recording: the value of PROJECT_CODEWORD appears in "))
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring("MARMALADE"))
	})
})
