package judge_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// denseEvents builds a log's events with dense seqs, each a type and
// its data.
func denseEvents(es ...[2]any) []session.Event {
	GinkgoHelper()
	var out []session.Event
	for _, e := range es {
		ev, err := session.NewEvent(e[0].(string), e[1])
		Expect(err).NotTo(HaveOccurred())
		ev.Seq = int64(len(out))
		out = append(out, ev)
	}
	return out
}

// Where a drift is named: the numbers a Drift carries count the session's
// own calls and counts, so a user finds the exact one.
var _ = Describe("the numbers a drift is named by", func() {
	start := func(turn int) [2]any { return [2]any{session.TypeTurnStart, session.TurnStartData{Turn: turn}} }
	end := func(turn int) [2]any {
		return [2]any{session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}}}
	}
	request := func(step int) [2]any {
		return [2]any{session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: step, Provider: "p", Model: "m",
			SystemDigest: "sys", MessagesDigest: "msgs", MessageCount: 1}}
	}

	It("gives a tool drift the model call before it: the session's second call when two came first", func() {
		recorded := func(args string) [2]any {
			return [2]any{session.TypeToolRecorded, session.ToolRecordedData{Turn: 1, Step: 2, CallID: "call_t", Name: "lookup", Arguments: args}}
		}
		log := func(args string) []*session.Log {
			return []*session.Log{{Header: session.Header{ID: "root", AgentPreset: "default"},
				Events: denseEvents(start(1), request(1), request(2), recorded(args))}}
		}
		o := judge.SettleVerdict(log(`{"k":1}`), log(`{"k":2}`))
		Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
		Expect(o.Drift.Kind()).To(Equal("tool drift"))
		Expect(o.Drift.ToolCall).To(Equal("call_t"))
		Expect(o.Drift.Call).To(Equal(2))
	})

	// fork is a root whose turn 1 makes two model calls, and a fork of it
	// after that turn whose own events are own.
	fork := func(own ...[2]any) []*session.Log {
		parent := denseEvents(start(1), request(1), request(2), end(1))
		seed := [][2]any{start(1), request(1), request(2), end(1)}
		return []*session.Log{
			{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: parent},
			{Header: session.Header{ID: "root/call_f", ParentSession: "root", ParentCallID: "call_f", Mode: session.ModeFork, SeedLength: len(seed),
				Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"},
				Events: denseEvents(append(seed, own...)...)},
		}
	}

	It("numbers a fork child's request drift among its own model calls, as the session counts them", func() {
		own := func(system string) [2]any {
			return [2]any{session.TypeRequestHeader, session.RequestHeaderData{Turn: 2, Step: 1, Provider: "p", Model: "m",
				SystemDigest: system, SystemChars: 3, MessagesDigest: "msgs", MessageCount: 1}}
		}
		golden, replay := fork(start(2), own("sys")), fork(start(2), own("new"))
		Expect(golden[1].CountModelCalls()).To(Equal(1))
		o := judge.SettleVerdict(golden, replay)
		Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
		Expect(o.Drift.Kind()).To(Equal("request drift"))
		Expect(o.Drift.Call).To(Equal(1))
		Expect(o.Report()).To(ContainSubstring("request drift: session 1 (fork of root via call_f), model call 1 (turn 2 step 1): the system prompt changed"))
	})

	It("gives a fork child's tool drift the last of its own model calls before it", func() {
		own := [2]any{session.TypeRequestHeader, session.RequestHeaderData{Turn: 2, Step: 1, Provider: "p", Model: "m",
			SystemDigest: "sys", MessagesDigest: "msgs", MessageCount: 1}}
		recorded := func(args string) [2]any {
			return [2]any{session.TypeToolRecorded, session.ToolRecordedData{Turn: 2, Step: 1, CallID: "call_t", Name: "lookup", Arguments: args}}
		}
		o := judge.SettleVerdict(fork(start(2), own, recorded(`{"k":1}`)), fork(start(2), own, recorded(`{"k":2}`)))
		Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
		Expect(o.Drift.Kind()).To(Equal("tool drift"))
		Expect(o.Drift.Call).To(Equal(1))
	})

	It("numbers a fork child's token count among its own counts, not those of the seed it inherited", func() {
		count := func(turn int, digest string) [2]any {
			return [2]any{session.TypeCountTokens, session.CountTokensData{Turn: turn, API: "anthropic-messages", Model: "m", Digest: digest, InputTokens: 10}}
		}
		parent := denseEvents(start(1), count(1, "seedcount"), end(1))
		tree := func(digest string) []*session.Log {
			return []*session.Log{
				{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: parent},
				{Header: session.Header{ID: "root/call_f", ParentSession: "root", ParentCallID: "call_f", Mode: session.ModeFork, SeedLength: 3,
					Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"},
					Events: denseEvents(start(1), count(1, "seedcount"), end(1), start(2), count(2, digest))},
			}
		}
		o := judge.SettleVerdict(tree("recordedcount"), tree("othercount"))
		Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
		Expect(o.Drift.Kind()).To(Equal("token count drift"))
		Expect(o.Drift.Session).To(Equal("session 1"))
		Expect(o.Drift.Count).To(Equal(1))
		Expect(o.Report()).To(ContainSubstring("token count drift: session 1 (fork of root via call_f), token count 1 (turn 2 step 0)"))
	})
})
