package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// failingWriter fails every write with err, as a full disk or a pipe
// whose reader went away does.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

var _ = Describe("agentsnap check's stdout failing", func() {
	checkTo := func(stdout failingWriter, format string) (code int, stderr, root string) {
		root = fixtureCopy("spawn/one-child")
		var errb bytes.Buffer
		getenv, asked := testEnv(nil)
		e := &env{stdout: stdout, stderr: &errb, getenv: getenv, dir: root}
		code = run(context.Background(), e, []string{"check", "fixtures/...", "--report", "report.html", "--format", format})
		asked()
		return code, errb.String(), root
	}
	formats := []TableEntry{Entry("the table", "text"), Entry("JSON", "json"), Entry("JUnit XML", "junit")}

	DescribeTable("fails the check when the report is lost, naming the error and what to do, once",
		func(format string) {
			code, stderr, root := checkTo(failingWriter{syscall.ENOSPC}, format)
			Expect(code).To(Equal(exitFail), "the scenario passed, but nobody could read so")
			Expect(stderr).To(ContainSubstring("agentsnap check: writing the report to stdout: no space left on device"))
			Expect(stderr).To(ContainSubstring("the report is incomplete, so the check fails whatever the scenarios did: run it again with stdout where it can be written"))
			Expect(strings.Count(stderr, "no space left on device")).To(Equal(1), stderr)
			Expect(filepath.Join(root, "report.html")).To(BeARegularFile())
		},
		formats,
	)

	DescribeTable("keeps the verdict when the reader stopped reading (check … | head)",
		func(format string) {
			code, stderr, root := checkTo(failingWriter{syscall.EPIPE}, format)
			Expect(code).To(Equal(exitOK), stderr)
			Expect(stderr).NotTo(ContainSubstring("broken pipe"))
			Expect(filepath.Join(root, "report.html")).To(BeARegularFile())
		},
		formats,
	)

	// Without its SIGPIPE handled, a Go program writing to a pipe nobody
	// reads dies of the signal before any deferred work.
	It("outlives a closed pipe: removes its temporary store and writes --report", Label("faults"), func() {
		root := fixtureCopy("spawn/one-child")
		tmp := GinkgoT().TempDir()
		r, w, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Close()).To(Succeed()) // head -0: gone before the first line
		cmd := exec.Command(agentsnapBinary(), "check", "fixtures/...", "--store", "jsonl:", "--report", "report.html")
		cmd.Dir, cmd.Stdout = root, w
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CI=")
		err = cmd.Run()
		w.Close()
		Expect(err).NotTo(HaveOccurred(), "%v\n%s", cmd.ProcessState, stderr.String())
		Expect(filepath.Join(root, "report.html")).To(BeARegularFile())
		left, err := os.ReadDir(tmp)
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(BeEmpty(), "the temporary --store jsonl: folder")
	})
})

var _ = DescribeTable("a write's error from a pipe whose reader left",
	func(goos string, errno syscall.Errno, left bool) {
		err := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: errno}
		Expect(readerLeftOn(goos, err)).To(Equal(left))
	},
	Entry("EPIPE", "linux", syscall.EPIPE, true),
	Entry("a full disk is not one", "linux", syscall.ENOSPC, false),
	// Go on Windows raises no SIGPIPE and returns these as they are:
	// check | head there must keep check's verdict too.
	Entry("ERROR_NO_DATA on Windows", "windows", syscall.Errno(232), true),
	Entry("ERROR_BROKEN_PIPE on Windows", "windows", syscall.Errno(109), true),
	Entry("ERROR_DISK_FULL on Windows is not one", "windows", syscall.Errno(112), false),
	Entry("232 elsewhere is no pipe's", "linux", syscall.Errno(232), false),
)
