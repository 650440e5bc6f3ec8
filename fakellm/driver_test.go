package fakellm_test

import (
	"strings"

	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// tree is a recorded scenario: a root that answers OK, then delegates to a
// spawn child (call_1) and a fork child (call_2); the spawn child delegates
// to a grandchild (call_9).
func tree() []*session.Log {
	root := rootLog("rec-root").turn(1, "say OK", "OK").turn(2, "delegate", "delegating", "DONE")
	spawn := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn).turn(1, "task a", "ALPHA")
	grand := childLog("session.2.jsonl", "rec-g", spawn, "call_9", session.ModeSpawn).turn(1, "task g", "GAMMA")
	fork := childLog("session.3.jsonl", "rec-b", root, "call_2", session.ModeFork).seedFrom(root).turn(3, "task b", "BETA", "BETA2")
	return []*session.Log{root.log(), spawn.log(), grand.log(), fork.log()}
}

// Live sessions of the tree, with ids the recording never saw.
var (
	lRoot  = liveRoot("live-1")
	lSpawn = liveChild("live-2", "live-1", "call_1", session.ModeSpawn)
	lFork  = liveChild("live-3", "live-1", "call_2", session.ModeFork)
	lGrand = llm.SessionRef{ID: "live-4", ParentID: "live-2", ParentCallID: "call_9", Mode: session.ModeSpawn, Depth: 2}
)

func newTree(opts ...fakellm.Option) *fakellm.Driver {
	GinkgoHelper()
	drv, err := fakellm.New(tree(), append([]fakellm.Option{fakellm.WithRecordCommand("agentsnap record fixtures/mixed/tree")}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	return drv
}

var _ = Describe("Driver routing", func() {
	It("gives each live session its own recorded script, by lineage and not by call order", func() {
		drv := newTree()
		Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
		Expect(say(drv, lRoot, 2, 1)).To(Equal("delegating"))
		// The children call in the opposite order of the recording.
		Expect(say(drv, lFork, 3, 1)).To(Equal("BETA"))
		Expect(say(drv, lSpawn, 1, 1)).To(Equal("ALPHA"))
		Expect(say(drv, lGrand, 1, 1)).To(Equal("GAMMA"))
		Expect(say(drv, lFork, 3, 2)).To(Equal("BETA2"))
		Expect(say(drv, lRoot, 2, 2)).To(Equal("DONE"))
		Expect(drv.Check()).To(Succeed())
		Expect(drv.Check()).To(Succeed(), "Check can run twice")
		Expect(drv.Notes()).To(BeEmpty())
	})

	It("replays concurrent children identically under any schedule", func() {
		// One parent step delegates 8 times; every child answers twice.
		root := rootLog("rec-root").turn(1, "say OK", "OK").turn(2, "delegate", "delegating", "DONE")
		logs := []*session.Log{root.log()}
		for k := 1; k <= 8; k++ {
			mode := session.ModeSpawn
			c := childLog(fmt.Sprintf("session.%d.jsonl", k), fmt.Sprintf("rec-%d", k), root, fmt.Sprintf("call_%d", k), mode)
			if k%2 == 0 {
				mode = session.ModeFork
				c = childLog(fmt.Sprintf("session.%d.jsonl", k), fmt.Sprintf("rec-%d", k), root, fmt.Sprintf("call_%d", k), mode).seedFrom(root)
			}
			logs = append(logs, c.turn(3, "task", fmt.Sprintf("child %d first", k), fmt.Sprintf("child %d second", k)).log())
		}
		for run := range 50 {
			drv, err := fakellm.New(logs)
			Expect(err).NotTo(HaveOccurred())
			live := func(k int) llm.SessionRef {
				mode := session.ModeSpawn
				if k%2 == 0 {
					mode = session.ModeFork
				}
				return liveChild(fmt.Sprintf("run%d-child-%d", run, k), "root", fmt.Sprintf("call_%d", k), mode)
			}
			Expect(say(drv, liveRoot("root"), 1, 1)).To(Equal("OK"))
			Expect(say(drv, liveRoot("root"), 2, 1)).To(Equal("delegating"))
			got := make([][]string, 9)
			var wg sync.WaitGroup
			for _, k := range rand.Perm(8) {
				wg.Go(func() {
					defer GinkgoRecover()
					for step := 1; step <= 2; step++ {
						cs, err := call(drv, live(k+1), 3, step)
						Expect(err).NotTo(HaveOccurred())
						got[k+1] = append(got[k+1], textOf(cs))
					}
				})
			}
			wg.Wait()
			for k := 1; k <= 8; k++ {
				Expect(got[k]).To(Equal([]string{fmt.Sprintf("child %d first", k), fmt.Sprintf("child %d second", k)}), "run %d child %d", run, k)
			}
			Expect(say(drv, liveRoot("root"), 2, 2)).To(Equal("DONE"))
			Expect(drv.Check()).To(Succeed())
		}
	})

	It("routes children of dsh logs (no parentCallId) by first-call order, and says so", func() {
		root := rootLog("dsh-root").turn(1, "go", "delegating", "DONE")
		// Listed out of createdAt order: the earlier child comes first anyway.
		late := dshChild("session.2.jsonl", "dsh-late", root, 3000).turn(1, "t", "LATE")
		early := dshChild("session.1.jsonl", "dsh-early", root, 2000).turn(1, "t", "EARLY")
		var logged []string
		drv, err := fakellm.New([]*session.Log{root.log(), late.log(), early.log()},
			fakellm.WithLogf(func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }))
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, lRoot, 1, 1)).To(Equal("delegating"))
		Expect(say(drv, liveChild("x", "live-1", "call_b", session.ModeSpawn), 1, 1)).To(Equal("EARLY"))
		Expect(say(drv, liveChild("y", "live-1", "call_a", session.ModeSpawn), 1, 1)).To(Equal("LATE"))
		Expect(say(drv, lRoot, 1, 2)).To(Equal("DONE"))
		Expect(drv.Check()).To(Succeed())
		Expect(drv.Notes()).To(HaveLen(2))
		Expect(logged).To(Equal(drv.Notes()))
		Expect(logged[0]).To(Equal(`fakellm: session root/#1 (session.1.jsonl) has no parentCallId (a dsh log?); live child x (created by call "call_b") was routed to it by first-call order, which is deterministic only if the children start in a fixed order`))
	})
})

var _ = Describe("Driver diagnostics", func() {
	const rerecord = "re-record with: agentsnap record fixtures/mixed/tree"

	DescribeTable("a call that cannot start fails with a sentinel error naming session, lineage and the fix",
		func(calls func(drv *fakellm.Driver) error, sentinel error, want string) {
			drv := newTree()
			err := calls(drv)
			Expect(err).To(MatchError(sentinel))
			Expect(err.Error()).To(Equal(want))
			// Kept for the teardown check too, even if the agent swallowed it.
			Expect(drv.Check()).To(MatchError(sentinel))
			Expect(drv.Check().Error()).To(ContainSubstring(want))
		},
		Entry("unrecorded child: its parent and call id", func(drv *fakellm.Driver) error {
			say(drv, lRoot, 1, 1)
			_, err := call(drv, liveChild("live-9", "live-1", "call_7", session.ModeSpawn), 2, 1)
			return err
		}, fakellm.ErrUnrecordedSession,
			`fakellm: unrecorded session: session root/call_7 (live spawn call at turn 2 step 1): session root (session.jsonl) has no recorded child created by call "call_7" (recorded children: call_1 (spawn), call_2 (fork)) — the agent delegated where the recording did not; `+rerecord),
		Entry("unrecorded child: its parent never called", func(drv *fakellm.Driver) error {
			_, err := call(drv, lSpawn, 1, 1)
			return err
		}, fakellm.ErrUnrecordedSession,
			`fakellm: unrecorded session: child session live-2 of live session live-1, created by call "call_1" (live spawn call at turn 1 step 1): its parent has made no model call, so it is bound to no recorded session — `+rerecord),
		Entry("a second root", func(drv *fakellm.Driver) error {
			say(drv, lRoot, 1, 1)
			_, err := call(drv, liveRoot("live-other"), 1, 1)
			return err
		}, fakellm.ErrUnrecordedSession,
			`fakellm: unrecorded session: a second root session live-other (live call at turn 1 step 1); the recording has one root, already bound to live session live-1 — `+rerecord),
		Entry("two live children of one call", func(drv *fakellm.Driver) error {
			say(drv, lRoot, 1, 1)
			say(drv, lSpawn, 1, 1)
			_, err := call(drv, liveChild("live-5", "live-1", "call_1", session.ModeSpawn), 1, 1)
			return err
		}, fakellm.ErrUnrecordedSession,
			`fakellm: unrecorded session: child session live-5 of session root (session.jsonl), created by call "call_1": every recorded child of that call is already bound (the last to live session live-2) — the agent created more children with this call id than the recording (live spawn call at turn 1 step 1) — re-record with: `+strings.TrimPrefix(rerecord, "re-record with: ")),
		Entry("script exhausted: call k of n", func(drv *fakellm.Driver) error {
			say(drv, lRoot, 1, 1)
			say(drv, lSpawn, 1, 1)
			_, err := call(drv, lSpawn, 1, 2)
			return err
		}, fakellm.ErrScriptExhausted,
			`fakellm: script exhausted: session root/call_1 (spawn; session.1.jsonl): asked for call 2, recorded 1 (live call at turn 1 step 2) — the agent made more model calls than the recording; `+rerecord),
		Entry("another path: turn and step of both", func(drv *fakellm.Driver) error {
			say(drv, lRoot, 1, 1)
			say(drv, lRoot, 2, 1)
			_, err := call(drv, lRoot, 3, 1)
			return err
		}, fakellm.ErrPathMismatch,
			`fakellm: path mismatch: session root (session.jsonl): live call at turn 3 step 1, the recording's next call (3 of 3) was at turn 2 step 2 — the agent took another path; `+rerecord),
		Entry("another path: a fork where a spawn was recorded", func(drv *fakellm.Driver) error {
			say(drv, lRoot, 1, 1)
			_, err := call(drv, liveChild("live-2", "live-1", "call_1", session.ModeFork), 1, 1)
			return err
		}, fakellm.ErrPathMismatch,
			`fakellm: path mismatch: session root/call_1 (spawn; session.1.jsonl): the live child created by call "call_1" is a fork, the recorded one a spawn — the agent took another path; `+rerecord),
	)

	It("lists every unconsumed script and cursor at once", func() {
		drv := newTree()
		say(drv, lRoot, 1, 1)
		say(drv, lRoot, 2, 1)
		say(drv, lFork, 3, 1)
		err := drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(Equal(`fakellm: recording not consumed: 4 recorded sessions not fully replayed — re-record with: agentsnap record fixtures/mixed/tree
  session root (session.jsonl): live session live-1 used 2 of 3 recorded calls (the next was at turn 2 step 2)
  session root/call_1 (spawn; session.1.jsonl): never called (1 recorded call)
  session root/call_1/call_9 (spawn; session.2.jsonl): never called (1 recorded call)
  session root/call_2 (fork; session.3.jsonl): live session live-3 used 1 of 2 recorded calls (the next was at turn 3 step 2)`))
	})

	It("reports failed calls with what was left over", func() {
		drv := newTree()
		say(drv, lRoot, 1, 1)
		_, swallowed := call(drv, liveChild("live-9", "live-1", "call_7", session.ModeSpawn), 2, 1)
		Expect(swallowed).To(HaveOccurred())
		err := drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err).To(MatchError(fakellm.ErrUnrecordedSession))
		Expect(errors.Is(err, fakellm.ErrScriptExhausted)).To(BeFalse())
		Expect(err.Error()).To(ContainSubstring("\nfakellm: 1 model call failed during the replay:\n  " + swallowed.Error()))
	})

	It("fails to build from logs that are not one tree", func() {
		logs := tree()
		_, err := fakellm.New(logs[1:])
		Expect(err).To(MatchError(fakellm.ErrBadRecording))
		Expect(err.Error()).To(Equal("fakellm: bad recording: session.1.jsonl names parent session rec-root, which is not among the logs"))
		_, err = fakellm.New(append(tree(), rootLog("other").log()))
		Expect(err).To(MatchError(ContainSubstring("two root sessions (without parentSession): session.jsonl and session.jsonl")))
		_, err = fakellm.New(append(tree(), tree()[1]))
		Expect(err).To(MatchError(ContainSubstring("session rec-a appears in both session.1.jsonl and session.1.jsonl")))
	})
})
