//go:build unix

// The specs signal a child process with SIGINT, and one makes a FIFO:
// unix only.

package main

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The exit deadline is a promise of the agentsnap binary, so the spec
// stops one with SIGINT: serve run in this process would be measured
// under the race detector, which slows the run's every step past what the
// binary people run takes.
var _ = Describe("serve --record stopped while a live MCP server holds its session's DELETE", func() {
	It("leaves the server unanswered after the bound, notes it, and exits in time with the recording written", func(_ SpecContext) {
		release := make(chan struct{})
		u := sessionEnder(func(http.ResponseWriter) {
			select {
			case <-release:
			case <-time.After(2 * time.Second): // a serve without the bound fails the spec, not hangs it
			}
		})
		DeferCleanup(func() { close(release) }) // before the server closes (cleanups run last first)
		dir := playbookScenario(`{"text": "OK"}`)
		p := startProcess(agentsnapBinary(), []string{"HOME=" + os.TempDir(), "PATH=" + os.Getenv("PATH")},
			dir, "--record", "--runtime", "own-agent", "--mcp", "clock="+u.URL)
		openMCPSession(p.url)
		p.interrupt()
		Expect(p.cmd.ProcessState.ExitCode()).To(Equal(exitOK), p.out.String()+p.errb.String())
		Expect(p.out.String()).To(HavePrefix("recorded " + dir + ": 1 session, 1 model call\n"))
		Expect(p.errb.String()).To(ContainSubstring("agentsnap serve: note: the live MCP server clock did not end its session live-1 (no answer within 100ms); it ends it itself when it times out"))
		Expect(p.errb.String()).NotTo(ContainSubstring("mcp-token-0123456789"))
	}, exitAttempts, SpecTimeout(time.Minute))
})

// slowWrite is how long the spec below holds the recording's write: with
// the DELETE's wait (mcpEndWait, 100 ms) after it, serve could not exit
// before 210 ms, past exitBound; with the two at once it exits about
// 110 ms plus the rest of the write after SIGINT.
const slowWrite = 110 * time.Millisecond

var _ = Describe("serve --record stopped while a live MCP server holds its session's DELETE, and the recording is slow to write", func() {
	It("writes the recording while the DELETE waits: the exit is the longer of the two, not their sum", func(_ SpecContext) {
		u := sessionEnder(func(http.ResponseWriter) {
			<-time.After(2 * time.Second) // no answer: serve gives up at mcpEndWait
		})
		dir := playbookScenario(`{"text": "OK"}`)
		// A slow disk: writing the recording begins with reading the old
		// golden, here a FIFO, which gives an empty one slowWrite after
		// serve opens it. A regular file takes its place before the FIFO
		// ends, for the later reads (what the recording changed).
		golden := filepath.Join(dir, "transcript.golden")
		Expect(syscall.Mkfifo(golden, 0o644)).To(Succeed())
		held := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			f, err := os.OpenFile(golden, os.O_WRONLY, 0) // returns once serve reads it
			if err != nil {
				return
			}
			defer f.Close()
			close(held)
			<-time.After(slowWrite) // the disk's time, nothing to wait for
			if os.WriteFile(golden+".tmp", nil, 0o644) == nil {
				_ = os.Rename(golden+".tmp", golden)
			}
		}()
		DeferCleanup(func() { // a serve that never read it releases the opener
			if f, err := os.OpenFile(golden, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
		p := startProcess(agentsnapBinary(), []string{"HOME=" + os.TempDir(), "PATH=" + os.Getenv("PATH")},
			dir, "--record", "--runtime", "own-agent", "--replace-golden", "--mcp", "clock="+u.URL)
		openMCPSession(p.url)
		p.interrupt()
		Expect(held).To(BeClosed(), "serve wrote the recording without reading the old golden, so the spec's slow write never happened; hold the write another way")
		Expect(p.cmd.ProcessState.ExitCode()).To(Equal(exitOK), p.out.String()+p.errb.String())
		Expect(p.out.String()).To(HavePrefix("recorded " + dir + ": 1 session, 1 model call\n"))
		Expect(readFile(filepath.Join(dir, "session.jsonl"))).To(ContainSubstring(`"type":"turn/end"`))
		Expect(readFile(golden)).To(ContainSubstring("OK"))
		// The late DELETE's note still reached stderr before serve exited.
		Expect(p.errb.String()).To(ContainSubstring("agentsnap serve: note: the live MCP server clock did not end its session live-1 (no answer within 100ms)"))
	}, exitAttempts, SpecTimeout(time.Minute))
})
