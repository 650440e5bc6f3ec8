package fakellm_test

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// fixedPlan is a schedule whose every call waits as waits says.
type fixedPlan struct{ waits []time.Duration }

func (f fixedPlan) Plan(string, int, int) fakellm.Plan { return fakellm.Plan{Waits: f.waits} }

// abortedAnswer is a recorded call whose context ended while it streamed:
// the prefix, then an aborted finish.
var abortedAnswer = append(prefix[:2:2], session.Finish(session.FinishAborted))

// drainCancelled drains the root's call at turn 1 step 1 with a context
// that has already ended, so no wait of the replay can hold it up.
func drainCancelled(drv *fakellm.Driver) []session.Chunk {
	GinkgoHelper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cs, err := callCtx(ctx, drv, lRoot, 1, 1)
	Expect(err).NotTo(HaveOccurred())
	return cs
}

var _ = Describe("a call recorded with an aborted finish", func() {
	It("streams its prefix, waits, and ends with its one recorded finish, never two", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Chunks: abortedAnswer}})
		Expect(drainCancelled(drv)).To(Equal(abortedAnswer))
	})

	It("makes the replay one that waits (NeverWaits is false), like a hang", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Chunks: abortedAnswer}})
		Expect(drv.NeverWaits()).To(BeFalse())
		Expect(authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Chunks: answer("done")}}).NeverWaits()).To(BeTrue())
	})
})

var _ = Describe("an authored throw", func() {
	It("without a message still names its code in the error finish", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindThrow, Chunks: prefix, Code: "RATE_LIMIT"}})
		cs, err := call(drv, lRoot, 1, 1)
		Expect(err).NotTo(HaveOccurred())
		last := cs[len(cs)-1]
		Expect(last.Reason.Kind).To(Equal(session.FinishError))
		Expect(last.Reason.Failure.Code).To(Equal("RATE_LIMIT"))
		Expect(last.Reason.Failure.Message).To(ContainSubstring("RATE_LIMIT"))
	})

	It("waits the plan's wait at Waits[len(chunks)] before the finish it adds, not Waits[0]", func() {
		// Nothing before the prefix's chunks; an hour before the added
		// finish. With the context ended, that wait is cut: aborted.
		sched := fixedPlan{waits: []time.Duration{0, 0, time.Hour}}
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindThrow, Chunks: prefix, Code: "RATE_LIMIT"}}, fakellm.WithScheduleOf(sched))
		Expect(drainCancelled(drv)).To(Equal(abortedAnswer))
	})
})

var _ = Describe("an authored entry with a turn but no step", func() {
	It("is still refused at another turn", func() {
		drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Turn: 2, Chunks: answer("late")}})
		_, err := call(drv, lRoot, 1, 1)
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
	})

	It("is served at its turn, whatever the step (0: not checked)", func() {
		for _, step := range []int{1, 3} {
			drv := authored([]fakellm.Entry{{Kind: fakellm.KindChunks, Turn: 2, Chunks: answer("late")}})
			cs, err := call(drv, lRoot, 2, step)
			Expect(err).NotTo(HaveOccurred(), "step %d", step)
			Expect(cs).To(Equal(answer("late")))
		}
	})
})

var _ = Describe("a patch that gives a turn and no step", func() {
	patched := func() *fakellm.Driver {
		GinkgoHelper()
		ov := &fakellm.Override{Path: "test override", Sessions: map[string]fakellm.SessionOverride{
			"session.jsonl": {Patch: map[int]fakellm.Entry{0: {Kind: fakellm.KindChunks, Turn: 1, Chunks: answer("patched")}}}}}
		drv, err := fakellm.New([]*session.Log{rootLog("r").turn(1, "hi", "hello").log()}, fakellm.WithOverride(ov))
		Expect(err).NotTo(HaveOccurred())
		return drv
	}

	It("keeps the step of the entry it replaces: served there, refused at another", func() {
		cs, err := call(patched(), lRoot, 1, 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(cs).To(Equal(answer("patched")))
		_, err = call(patched(), lRoot, 1, 2)
		Expect(err).To(MatchError(fakellm.ErrPathMismatch))
	})
})

var _ = Describe("building a driver", func() {
	It("refuses sessions the root does not reach (a parent cycle), naming how many", func() {
		root := rootLog("rec-root").turn(1, "hi", "hello")
		a := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn).turn(1, "a", "A")
		b := childLog("session.2.jsonl", "rec-b", a, "call_2", session.ModeSpawn).turn(1, "b", "B")
		a.l.Header.ParentSession = "rec-b" // a and b name each other
		_, err := fakellm.New([]*session.Log{root.log(), a.log(), b.log()})
		Expect(err).To(MatchError(fakellm.ErrBadRecording))
		Expect(err.Error()).To(ContainSubstring("2 of 3 sessions are not reachable from the root"))
	})
})

var _ = Describe("WithCallCheck and a fork child", func() {
	It("shows the child's own recorded request, never one of the prefix it inherited", func() {
		// dsh's fork children number their own turn on from the
		// parent's (subagent-mixed: the child's own turn is 2, as is the
		// seed's last): the seed's request/header of the same turn and
		// step is the parent's, not the child's.
		root := rootLog("rec-root").askedTurn(1, "say OK", "model-parent", "OK")
		fork := childLog("session.1.jsonl", "rec-f", root, "call_f", session.ModeFork).seedFrom(root).
			askedTurn(1, "task", "model-child", "CHILD")
		var seen []fakellm.RecordedCall
		drv, err := fakellm.New([]*session.Log{root.log(), fork.log()}, fakellm.WithCallCheck(func(c fakellm.RecordedCall, _ *llm.Request) error {
			seen = append(seen, c)
			return nil
		}))
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, lRoot, 1, 1)).To(Equal("OK"))
		Expect(say(drv, liveChild("live-f", "live-1", "call_f", session.ModeFork), 1, 1)).To(Equal("CHILD"))
		Expect(seen).To(HaveLen(2))
		Expect(seen[1].Lineage).To(Equal("root/call_f"))
		Expect(seen[1].Request).To(HaveField("Model", "model-child"))
	})

	It("shows a call the first request/header of its turn, step and attempt", func() {
		// A dsh retry has no attempt numbers: both calls of the step share
		// (turn, step, 0); the first call's request is the first header.
		b := rootLog("rec-root")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"})
		b.ev(session.TypeStepStart, session.StepData{Turn: 1, Step: 1})
		b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: "first"})
		b.chunks(1, 1, 0, answer("one")...)
		b.ev(session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: "retry"})
		b.chunks(1, 1, 0, answer("two")...)
		b.ev(session.TypeStepEnd, session.StepData{Turn: 1, Step: 1})
		b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}})
		var seen []fakellm.RecordedCall
		drv, err := fakellm.New([]*session.Log{b.log()}, fakellm.WithCallCheck(func(c fakellm.RecordedCall, _ *llm.Request) error {
			seen = append(seen, c)
			return nil
		}))
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, lRoot, 1, 1)).To(Equal("one"))
		Expect(seen[0].Request).To(HaveField("Model", "first"))
	})
})

var _ = Describe("the consumption check", func() {
	It("lists the calls of unrecorded children of one parent by call id, whatever order they came in", func() {
		drv := newTree()
		say(drv, lRoot, 1, 1)
		// Live ids sort the other way round: the call id, not the live
		// id or the arrival, orders them.
		_, errB := call(drv, liveChild("live-a", "live-1", "call_x", session.ModeSpawn), 1, 1)
		_, errA := call(drv, liveChild("live-z", "live-1", "call_w", session.ModeSpawn), 1, 1)
		Expect(errB).To(MatchError(fakellm.ErrUnrecordedSession))
		Expect(errA).To(MatchError(fakellm.ErrUnrecordedSession))
		msg := drv.Check().Error()
		Expect(strings.Index(msg, `"call_w"`)).To(BeNumerically(">=", 0))
		Expect(strings.Index(msg, `"call_w"`)).To(BeNumerically("<", strings.Index(msg, `"call_x"`)), msg)
	})

	It("names a session never called whose recording holds only MCP answers", func() {
		root := rootLog("rec-root").turn(1, "hi", "hello")
		child := childLog("session.1.jsonl", "rec-a", root, "call_1", session.ModeSpawn)
		child.ev(session.TypeMCPCall, session.MCPCallData{Turn: 1, Step: 1, Server: "clock", Method: "tools/call",
			Params: json.RawMessage(`{"name":"now"}`), Result: json.RawMessage(`{"content":[]}`)})
		drv, err := fakellm.New([]*session.Log{root.log(), child.log()})
		Expect(err).NotTo(HaveOccurred())
		say(drv, lRoot, 1, 1)
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(ContainSubstring("session root/call_1 (spawn; session.1.jsonl): never called (1 recorded MCP answer)"))
	})
})

var _ = Describe("an entry's bounds", func() {
	It("takes the largest turn, step and attempt allowed", func() {
		e := fakellm.Entry{Kind: fakellm.KindChunks, Turn: 1_000_000, Step: 1_000_000, Attempt: 1_000_000, Chunks: answer("x")}
		Expect(e.Validate()).To(Succeed())
	})

	It("refuses a message on a hang, which has no error finish to carry it", func() {
		e := fakellm.Entry{Kind: fakellm.KindHang, Message: "slow"}
		Expect(e.Validate()).To(MatchError(ContainSubstring(`only a "throw" entry has a code and a message`)))
	})

	It("refuses a chunks entry whose one finish is not its last chunk", func() {
		chunks := append([]session.Chunk{session.Finish(session.FinishStop)}, session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 1, OutputTokens: 1}})
		e := fakellm.Entry{Kind: fakellm.KindChunks, Chunks: chunks}
		Expect(e.Validate()).To(MatchError(ContainSubstring("must end with exactly one finish chunk")))
	})
})

var _ = Describe("a sidecar's patch keys", func() {
	It("refuses an index written with a leading zero or sign", func() {
		for _, k := range []string{"01", "+1"} {
			_, err := fakellm.ParseOverride([]byte(`{"session.jsonl": {"patch": {"`+k+`": {"kind": "hang", "chunks": []}}}}`), "replay.override.json")
			Expect(err).To(MatchError(fakellm.ErrBadOverride), k)
			Expect(err.Error()).To(ContainSubstring(`patch: key "` + k + `" is not an entry index`))
		}
	})
})

var _ = Describe("the seeded schedule's lag", func() {
	It("comes before a recorded answer's first chunk or its finish, never after the finish", func() {
		const n = 7
		atEnd := 0
		for seed := int64(1); seed <= 300; seed++ {
			p := fakellm.Seeded(seed).Plan("root/call_1", 1, n)
			Expect(p.Waits[n]).To(BeNumerically("<", 500*time.Microsecond), "seed %d: Waits[%d] precedes only a finish the driver adds", seed, n)
			if p.Waits[n-1] >= 500*time.Microsecond {
				atEnd++
			}
		}
		Expect(atEnd).To(BeNumerically(">", 0), "some seeds lag a call before its finish")
	})
})

var _ = Describe("recorded tools served", func() {
	It("count as consumed: the check passes once every call and tool result was replayed", func() {
		root := rootLog("rec-root").toolTurn(1, "a", "r1", 1)
		drv, err := fakellm.New([]*session.Log{root.log()})
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, lRoot, 1, 1)).To(Equal("a"))
		out, err := drv.ReplayTool(context.Background(), lRoot, session.ToolRecordedData{Turn: 1, Step: 1, CallID: "call_0", Name: "lookup", Arguments: `{"k":1}`})
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("r1"))
		_, err = drv.ReplayMCP(context.Background(), lRoot, session.MCPCallData{Turn: 1, Step: 1, Server: "clock", Method: "tools/call", Params: json.RawMessage(`{"name":"now","arguments":{}}`)})
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.Check()).To(Succeed())
	})
})

var _ = Describe("DeriveLog and a negative seedLength", func() {
	It("refuses it as a seed past the log, naming the log", func() {
		l := rootLog("rec-root").turn(1, "hi", "hello").log()
		l.Header.SeedLength = -1
		_, err := fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		Expect(err).To(MatchError(session.ErrSeedPastEnd))
		Expect(err.Error()).To(ContainSubstring("seedLength is -1"))
	})
})

var _ = Describe("virtual time and a child's own turn numbers", Label("vclock"), func() {
	It("holds a timeout while a sibling's call is due, though the hanging child numbers its turn past the root's", func(ctx SpecContext) {
		// As hangingPair, but child a numbers its own turn 3 (a fork
		// child numbers on from its parent's turns): only the root's
		// calls say which root turn the replay is at.
		drv := hangingPairAt(3)

		Expect(say(drv, lRoot, 1, 1)).To(BeEmpty())
		tctx, cancel := drv.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		hang := streamIn(tctx, drv, lA, 3, 1)
		Eventually(drv.Waiting).WithContext(ctx).Should(ContainElement(ContainSubstring("a hang, waiting for its context to end; the timeout of 1h0m0s that ends it is pending")))
		Expect(hang).NotTo(Receive(), "the sibling's recorded call is due: the timeout is held")
		Expect(tctx.Err()).To(BeNil())

		Expect(say(drv, lB, 1, 1)).To(Equal("B"))
		Eventually(hang).WithContext(ctx).Should(Receive())
		Expect(tctx.Err()).To(Equal(context.DeadlineExceeded))
	}, SpecTimeout(time.Minute))
})
