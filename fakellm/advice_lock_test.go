package fakellm_test

import (
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/agentsnap/agentsnap/fakellm"
)

// The record command a failing call's message ends with may be slow to
// make (agentsnap serve's reads every log of the fixture). Sessions run
// concurrently: one session's failure must not hold up the others' calls
// while the command is made, whoever reads the message first.
var _ = Describe("the record command of a failing call", func() {
	const mismatch = "fakellm: path mismatch: session root/call_1 (spawn; session.1.jsonl): live call at turn 5 step 5, the recording's next call (1 of 1) was at turn 1 step 1 — the agent took another path; re-record with: agentsnap record fixtures/mixed/tree"

	DescribeTable("is made without holding up another session's calls, and the message reads as before",
		func(read func(drv *fakellm.Driver, failure error) string, want types.GomegaMatcher) {
			making, release := make(chan struct{}), make(chan struct{})
			began, done := sync.OnceFunc(func() { close(making) }), sync.OnceFunc(func() { close(release) })
			DeferCleanup(done) // whatever fails, nothing waits for the command after the spec
			drv, err := fakellm.New(tree(), fakellm.WithRecordCommandFunc(func() string {
				began()
				<-release
				return "agentsnap record fixtures/mixed/tree"
			}))
			Expect(err).NotTo(HaveOccurred())
			Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
			Expect(say(drv, lRoot, 2, 1)).To(Equal("delegating"))

			read2 := make(chan string, 1)
			go func() {
				_, err := call(drv, lSpawn, 5, 5) // recorded at turn 1 step 1: another path
				read2 <- read(drv, err)           // the message names the command: it is made
			}()
			Eventually(making).WithTimeout(10*time.Second).Should(BeClosed(), "reading the message asks for the command")

			served := make(chan string, 1)
			go func() {
				cs, err := call(drv, lFork, 3, 1)
				if err != nil {
					served <- err.Error()
					return
				}
				served <- textOf(cs)
			}()
			Eventually(served).WithTimeout(10*time.Second).Should(Receive(Equal("BETA")), "the fork child's call is served while the command is made")
			Expect(read2).NotTo(Receive(), "the command is still being made")

			done()
			var msg string
			Eventually(read2).WithTimeout(10 * time.Second).Should(Receive(&msg))
			Expect(msg).To(want)
		},
		Entry("the failing call's error", func(_ *fakellm.Driver, failure error) string {
			if failure == nil {
				return "served"
			}
			return failure.Error()
		}, Equal(mismatch)),
		Entry("Check's error", func(drv *fakellm.Driver, _ error) string { return drv.Check().Error() },
			SatisfyAll(HavePrefix("fakellm: recording not consumed: 4 recorded sessions not fully replayed — re-record with: agentsnap record fixtures/mixed/tree\n"), ContainSubstring("\n  "+mismatch))),
		Entry("Waiting", func(drv *fakellm.Driver, _ error) string { return strings.Join(drv.Waiting(), "\n") },
			ContainSubstring("1 model call could not start; the first: "+mismatch)),
	)
})
