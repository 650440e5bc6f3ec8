//go:build unix

// The spec signals a child process with SIGINT: unix only.

package main

import (
	"net/http"
	"os"
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
	}, SpecTimeout(time.Minute))
})
