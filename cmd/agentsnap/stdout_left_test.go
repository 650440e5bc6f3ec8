//go:build unix

// A pipe whose reader closed: a write to it fails with EPIPE (the test
// process takes SIGPIPE only for its own stdout and stderr).

package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// closedPipe returns the writing end of a pipe whose reader is gone, as
// "| head" leaves it once head has what it wanted.
func closedPipe() *os.File {
	GinkgoHelper()
	r, w, err := os.Pipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Close()).To(Succeed())
	DeferCleanup(w.Close)
	return w
}

var _ = Describe("a command whose stdout reader left", func() {
	runTo := func(root string, stdout *os.File, args ...string) (int, string) {
		var errb bytes.Buffer
		getenv, asked := testEnv(nil)
		e := &env{stdout: stdout, stderr: &lockedWriter{w: &errb}, getenv: getenv, dir: root}
		code := run(context.Background(), e, args)
		asked()
		return code, errb.String()
	}

	// derive … | head: dying of SIGPIPE said nothing; the error that
	// took its place is noise about what the user did on purpose.
	DescribeTable("ends cut short, failing, without a message",
		func(args ...string) {
			root := fixtureCopy("fork/codeword")
			before := treeDigest(root)
			code, stderr := runTo(root, closedPipe(), args...)
			Expect(code).To(Equal(exitBadData))
			Expect(stderr).To(BeEmpty())
			Expect(treeDigest(root)).To(Equal(before))
		},
		Entry("derive", "derive", "fixtures/fork/codeword/session.jsonl"),
		Entry("inspect", "inspect", "fixtures/fork/codeword"),
		Entry("review --format json", "review", "fixtures", "--format", "json"),
	)

	It("still names an EPIPE that is not stdout's", func() {
		var errb bytes.Buffer
		e := &env{stdout: closedPipe(), stderr: &errb}
		conn := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
		Expect(fail(e, "record", conn)).To(Equal(exitBadData))
		Expect(errb.String()).To(ContainSubstring("agentsnap record: write tcp: write: broken pipe"))
		errb.Reset()
		other := &os.PathError{Op: "write", Path: "/tmp/report.html", Err: syscall.EPIPE}
		Expect(fail(e, "check", other)).To(Equal(exitBadData))
		Expect(errb.String()).To(ContainSubstring("/tmp/report.html"))
	})

	// serve's first line is its URL: lost, the agent cannot find serve,
	// which would serve a port nobody learned until a signal.
	DescribeTable("serve stops at once when its URL line cannot be written, saying so",
		func(record bool) {
			root := fixtureCopy("fork/codeword")
			before := treeDigest(root)
			args := []string{"serve", "fixtures/fork/codeword", "--runtime", "reference"}
			if record {
				args = append(args, "--record")
			}
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			stdout := closedPipe()
			go func() {
				code, stderr := runTo(root, stdout, args...)
				done <- result{code, stderr}
			}()
			var got result
			Eventually(done).WithTimeout(hangBound).Should(Receive(&got), "serve went on serving an address nobody learned")
			Expect(got.code).To(Equal(exitBadData))
			Expect(got.stderr).To(ContainSubstring("agentsnap serve: writing its URL to stdout: write |1: broken pipe; an agent learns where serve listens from that line (port 0 is any free port), so serve stopped: run it with stdout read"))
			Expect(got.stderr).NotTo(ContainSubstring("no model call reached serve"))
			if record {
				Expect(got.stderr).To(ContainSubstring("nothing was recorded and the fixture is unchanged"))
			}
			Expect(treeDigest(root)).To(Equal(before))
			Expect(filepath.Join(root, "fixtures/fork/codeword/session.jsonl")).To(BeARegularFile())
		},
		Entry("replaying", false),
		Entry("recording", true),
	)
})

var _ = It("stdoutLeft tells stdout's EPIPE from any other", func() {
	w := closedPipe()
	_, err := w.Write([]byte("x"))
	Expect(errors.Is(err, syscall.EPIPE)).To(BeTrue())
	Expect(stdoutLeft(&env{stdout: w}, err)).To(BeTrue())
	Expect(stdoutLeft(&env{stdout: os.Stderr}, err)).To(BeFalse(), "another file's")
	Expect(stdoutLeft(&env{stdout: &bytes.Buffer{}}, err)).To(BeFalse(), "not a file")
	Expect(stdoutLeft(&env{stdout: w}, &os.PathError{Op: "write", Path: w.Name(), Err: syscall.ENOSPC})).To(BeFalse(), "a full disk")
})
