//go:build unix

// The spec signals a child process: unix only.

package main

import (
	"context"
	"os"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap serve stopped with SIGTERM", func() {
	It("exits as on SIGINT: within 200 ms, with its verdict", func(_ SpecContext) {
		bin := agentsnapBinary()
		p := startProcess(bin, []string{"HOME=" + os.TempDir(), "PATH=" + os.Getenv("PATH")}, serveFixture, "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), p.url, serveFixture)).To(Succeed())
		p.stopWith(syscall.SIGTERM)
		Expect(p.cmd.ProcessState.ExitCode()).To(Equal(0), p.out.String()+p.errb.String())
		Expect(p.out.String()).To(Equal("mixed/go-agent: replay matches the recording (3 sessions, 6 model calls)\n"))
	}, exitAttempts, SpecTimeout(time.Minute))
})
