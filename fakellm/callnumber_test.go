package fakellm_test

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// logNumber is the number of the last model call at (turn, step) among
// l's own, as inspect, drift and the report number calls
// (session.ModelCalls), or 0.
func logNumber(l *session.Log, turn, step int) int {
	n := 0
	for i, c := range l.ModelCalls() {
		if c.Turn == turn && c.Step == step {
			n = i + 1
		}
	}
	return n
}

var _ = Describe("the driver's messages in acted-on mode", func() {
	// retried(true): call 1 (turn 1 step 1) failed, call 2 is its retry,
	// call 3 is step 2. Acted-on replays calls 2 and 3, at positions 1
	// and 2: a message must name them 2 and 3, as inspect does.
	var (
		l   *session.Log
		drv *fakellm.Driver
	)
	lr := liveRoot("L")
	BeforeEach(func() {
		l = retried(true)
		Expect(logNumber(l, 1, 1)).To(Equal(2), "the retry, after the failed call 1")
		Expect(logNumber(l, 1, 2)).To(Equal(3))
		var err error
		drv, err = fakellm.New([]*session.Log{l}, fakellm.WithAttempts(fakellm.AttemptsActedOn))
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Scripts()[0].Entries).To(HaveLen(2))
	})

	It("name the recording's next call by its number in the log when the agent takes another path", func() {
		Expect(say(drv, lr, 1, 1)).To(Equal("whole"))
		_, err := call(drv, lr, 2, 1)
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("the recording's next call (%d of %d) was at turn 1 step 2", logNumber(l, 1, 2), logNumber(l, 1, 2))))
	})

	It("name the call asked for past the recording after the log's last", func() {
		Expect(say(drv, lr, 1, 1)).To(Equal("whole"))
		Expect(say(drv, lr, 1, 2)).To(Equal("done"))
		_, err := call(drv, lr, 1, 3)
		Expect(err).To(MatchError(fakellm.ErrScriptExhausted))
		Expect(err.Error()).To(ContainSubstring("session root (session.jsonl): asked for call 4, recorded 3 (live call at turn 1 step 3)"))
	})

	It("name a call in flight, and a recorded call never made, by their numbers in the log", func() {
		seq, err := drv.Stream(context.Background(), &llm.Request{Session: lr, Turn: 1, Step: 1, Attempt: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Waiting()).To(ConsistOf(fmt.Sprintf("session root (session.jsonl), call %d (turn 1 step 1): its answer is still streaming (a stream the runtime stopped reading holds the replay)", logNumber(l, 1, 1))))
		for range seq {
		}
		Expect(drv.Waiting()).To(ConsistOf(fmt.Sprintf("session root (session.jsonl): its recorded call %d (turn 1 step 2) was never made", logNumber(l, 1, 2))))
	})

	It("name a patched entry by the number of the call it stands in for", func() {
		ov := &fakellm.Override{Path: "test override", Sessions: map[string]fakellm.SessionOverride{"session.jsonl": {Patch: map[int]fakellm.Entry{1: {Kind: fakellm.KindChunks, Chunks: answer("patched")}}}}}
		drv, err := fakellm.New([]*session.Log{l}, fakellm.WithAttempts(fakellm.AttemptsActedOn), fakellm.WithOverride(ov))
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Scripts()[0].Entries[1].Call).To(Equal(3))
		Expect(say(drv, lr, 1, 1)).To(Equal("whole"))
		_, err = call(drv, lr, 2, 1)
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
		Expect(err.Error()).To(ContainSubstring("the recording's next call (3 of 3) was at turn 1 step 2"))
	})
})

var _ = Describe("the driver's messages for an authored script", func() {
	It("number its calls, which carry no number, by their position", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Chunks: answer("one")}, {Kind: fakellm.KindChunks, Chunks: answer("two")}})
		Expect(say(drv, lRoot, 1, 1)).To(Equal("one"))
		seq, err := drv.Stream(context.Background(), &llm.Request{Session: lRoot, Turn: 1, Step: 2, Attempt: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Waiting()).To(ConsistOf("session root (session.jsonl), call 2 (an authored position): its answer is still streaming (a stream the runtime stopped reading holds the replay)"))
		Expect(textOf(slices.Collect(seq))).To(Equal("two"))
		_, err = call(drv, lRoot, 1, 3)
		Expect(err).To(MatchError(fakellm.ErrScriptExhausted))
		Expect(err.Error()).To(ContainSubstring("asked for call 3, recorded 2"))
	})

	It("number a replacing script's calls by their position, whatever call they were copied from", func() {
		copied := fakellm.Entry{Kind: fakellm.KindChunks, Call: 1, Chunks: answer("again")}
		drv := authored([]fakellm.Entry{copied, copied})
		Expect(say(drv, lRoot, 1, 1)).To(Equal("again"))
		Expect(say(drv, lRoot, 1, 2)).To(Equal("again"))
		_, err := call(drv, lRoot, 1, 3)
		Expect(err).To(MatchError(fakellm.ErrScriptExhausted))
		Expect(err.Error()).To(ContainSubstring("asked for call 3, recorded 2"))
	})
})
