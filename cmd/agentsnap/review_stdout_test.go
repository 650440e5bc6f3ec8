package main

import (
	"bytes"
	"context"
	"io"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap review's stdout failing", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	reviewTo := func(root string, stdin io.Reader, stdout io.Writer, args ...string) (int, string) {
		var errb bytes.Buffer
		getenv, asked := testEnv(nil)
		e := &env{stdin: stdin, stdout: stdout, stderr: &errb, getenv: getenv, dir: root}
		code := run(context.Background(), e, append([]string{"review"}, args...))
		asked()
		return code, errb.String()
	}

	// The markdown is what the command is run for (a pull request
	// comment): lost, it is no success, whatever made it so.
	DescribeTable("--format markdown fails when the comment is lost",
		func(errno syscall.Errno, accept bool) {
			root := fixtureCopy("fork/codeword")
			golden, proposal, text := propose(root, "fork/codeword", codewordJAM)
			args := []string{"--format", "markdown"}
			if accept {
				args = append(args, "--accept")
			}
			code, stderr := reviewTo(root, nil, failingWriter{errno}, args...)
			Expect(code).To(Equal(exitFail))
			Expect(stderr).To(ContainSubstring("agentsnap review: writing the markdown to stdout: " + errno.Error()))
			if accept { // done before the comment, and said on stderr
				Expect(stderr).To(ContainSubstring("accepted fork/codeword"))
				Expect(readFile(golden)).To(Equal(text))
			} else {
				Expect(proposal).To(BeARegularFile())
			}
		},
		Entry("to a reader that stopped reading", syscall.EPIPE, false),
		Entry("to a full disk", syscall.ENOSPC, false),
		Entry("with --accept", syscall.EPIPE, true),
	)

	It("--format json fails when even its [] is lost", func() {
		root := fixtureCopy("fork/codeword")
		code, stderr := reviewTo(root, nil, failingWriter{syscall.ENOSPC}, "--format", "json")
		Expect(code).To(Equal(exitFail))
		Expect(stderr).To(ContainSubstring("no space left on device"))
	})
})
