package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// countingReader counts the bytes read from r, by review's key reader
// (a goroutine of its own).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// failsAfter writes to w until the first write that holds mark and then
// more writes, then fails every write with err: a reader that leaves
// midway.
type failsAfter struct {
	w    io.Writer
	mark string
	more int
	err  error
	seen bool
}

func (f *failsAfter) Write(p []byte) (int, error) {
	if f.seen && f.more == 0 {
		return 0, f.err
	}
	if f.seen {
		f.more--
	}
	f.seen = f.seen || strings.Contains(string(p), f.mark)
	return f.w.Write(p)
}

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

	// review | less, then q: the keys typed next would settle proposals
	// nobody sees.
	It("asking, stops once the proposals cannot be shown, settling none", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		_, first, _ := propose(root, "fork/codeword", codewordJAM)
		_, second, _ := propose(root, "spawn/one-child", replace("\n", "\n\n"))
		code, stderr := reviewTo(root, strings.NewReader("a\na\n"), failingWriter{syscall.EPIPE})
		Expect(code).To(Equal(exitFail))
		Expect(stderr).To(Equal("agentsnap review: stopped: stdout cannot be written (broken pipe), so the proposals cannot be shown; 0 accepted, 0 rejected, 2 left pending: review them where stdout can be read\n"))
		Expect(first).To(BeARegularFile())
		Expect(second).To(BeARegularFile())
	})

	It("asking, does not prompt again and again for a key nobody sees", func() {
		root := fixtureCopy("fork/codeword")
		propose(root, "fork/codeword", codewordJAM)
		typed := strings.Repeat("x\n", 1<<20) // no answer: each asks again
		in := &countingReader{r: strings.NewReader(typed)}
		code, _ := reviewTo(root, in, failingWriter{syscall.EPIPE})
		Expect(code).To(Equal(exitFail))
		Expect(in.n.Load()).To(BeNumerically("<", len(typed)/2), "review read the keys of a prompt it could not show")
	})

	It("accepting all remaining, stops too once they cannot be shown", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		golden, _, text := propose(root, "fork/codeword", codewordJAM)
		_, second, _ := propose(root, "spawn/one-child", replace("\n", "\n\n"))
		var seen bytes.Buffer
		code, stderr := reviewTo(root, strings.NewReader("A\n"), &failsAfter{w: &seen, mark: "[q]uit: ", more: 2, err: syscall.EPIPE})
		Expect(code).To(Equal(exitFail))
		Expect(stderr).To(ContainSubstring("1 accepted, 0 rejected, 1 left pending"))
		Expect(readFile(golden)).To(Equal(text), "accepted with its diff on the screen")
		Expect(second).To(BeARegularFile())
	})
})
