package judge_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// The verdict on a tree: the first drift in the recording's lineage order
// is the drift; every other session that differs is listed, each once.
var _ = Describe("settling the verdict of a tree", func() {
	request := func(system string) [2]any {
		return [2]any{session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: "m",
			SystemDigest: system, SystemChars: len(system), MessagesDigest: "msgs", MessageCount: 1}}
	}
	recorded := func(args string) [2]any {
		return [2]any{session.TypeToolRecorded, session.ToolRecordedData{Turn: 1, Step: 1, CallID: "call_t", Name: "lookup", Arguments: args}}
	}
	start := [2]any{session.TypeTurnStart, session.TurnStartData{Turn: 1}}
	step := [2]any{session.TypeStepStart, session.StepData{Turn: 1, Step: 1}}
	// tree is a root and a spawned child whose events are root's and child's.
	tree := func(root, child []session.Event) []*session.Log {
		return []*session.Log{
			{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: root},
			{Header: session.Header{ID: "root/call_1", ParentSession: "root", ParentCallID: "call_1", Mode: session.ModeSpawn,
				Origin: session.OriginSubagent, DelegationDepth: 1, AgentPreset: "default"}, Events: child},
		}
	}

	It("keeps the first request drift and lists a later session's as a difference", func() {
		golden := tree(denseEvents(start, step, request("sys-a")), denseEvents(start, step, request("sys-a")))
		replay := tree(denseEvents(start, step, request("sys-b")), denseEvents(start, step, request("sys-c")))
		o := judge.SettleVerdict(golden, replay)
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Session).To(Equal("root"))
		Expect(o.Differences).To(ConsistOf(SatisfyAll(
			HaveField("Session", "session 1"),
			HaveField("Field", "data.systemDigest"),
		)))
		Expect(o.Passed()).To(BeFalse())
	})

	It("keeps the first tool drift and lists a later session's as a difference", func() {
		golden := tree(denseEvents(start, step, recorded(`{"k":1}`)), denseEvents(start, step, recorded(`{"k":1}`)))
		replay := tree(denseEvents(start, step, recorded(`{"k":2}`)), denseEvents(start, step, recorded(`{"k":3}`)))
		o := judge.SettleVerdict(golden, replay)
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Session).To(Equal("root"))
		Expect(o.Drift.Tool).To(Equal("lookup"))
		Expect(o.Drift.Changes).To(ConsistOf(ContainSubstring(`called with {"k":2}`)))
		Expect(o.Differences).To(ConsistOf(HaveField("Session", "session 1")))
	})

	It("takes a replay that rewrote its history where the recording went on as request drift", func() {
		replace := [2]any{session.TypeHistoryReplace, session.HistoryReplaceData{Turn: 1, Keep: 0,
			Messages: []session.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("compacted")}}}}}
		changed := request("sys-a")
		d := changed[1].(session.RequestHeaderData)
		d.MessagesDigest = "other"
		changed[1] = d
		golden := tree(denseEvents(start, step, request("sys-a")), nil)
		replay := tree(denseEvents(start, replace, step, changed), nil)
		o := judge.SettleVerdict(golden, replay)
		Expect(o.Drift).NotTo(BeNil(), "differences: %v", o.Differences)
		Expect(o.Drift.Session).To(Equal("root"))
		Expect(o.Drift.Call).To(Equal(1))
		Expect(o.Differences).To(BeEmpty())
	})

	It("reports every session that differs, not only the first", func() {
		note := func(s string) []session.Event {
			return []session.Event{{Type: "x/note", Seq: 0, Data: json.RawMessage(`{"s":"` + s + `"}`)}}
		}
		o := judge.SettleVerdict(tree(note("a"), note("a")), tree(note("b"), note("c")))
		Expect(o.Drift).To(BeNil())
		Expect(o.Differences).To(HaveLen(2))
		report := o.Report()
		Expect(report).To(ContainSubstring(`root (root session): seq 0 (x/note): data.s: golden "a", replay "b"`))
		Expect(report).To(ContainSubstring(`session 1 (spawn of root via call_1): seq 0 (x/note): data.s: golden "a", replay "c"`))
	})

	DescribeTable("names how the conversation sent changed",
		func(recorded, now []string, change string) {
			conversation := func(digests []string) []session.Event {
				d := session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: "m", SystemDigest: "s", SystemChars: 1,
					MessagesDigest: strings.Join(digests, "+"), MessageCount: len(digests), MessageDigests: digests}
				return denseEvents(start, step, [2]any{session.TypeRequestHeader, d})
			}
			o := judge.SettleVerdict(tree(conversation(recorded), nil), tree(conversation(now), nil))
			Expect(o.Drift).NotTo(BeNil())
			Expect(o.Drift.Changes).To(ContainElement(change))
		},
		Entry("a message edited", []string{"a", "b", "c"}, []string{"a", "x", "c"},
			"the conversation sent differs from message 2 on (3 messages recorded, 3 now)"),
		Entry("the first message edited", []string{"a", "b"}, []string{"x", "b"},
			"the conversation sent differs from message 1 on (2 messages recorded, 2 now)"),
		Entry("a message added", []string{"a"}, []string{"a", "b"},
			"the conversation sent has 2 messages, the recording 1"),
	)

	It("takes a recorded tool called under another call id as a difference, not as that call's drift", func() {
		other := [2]any{session.TypeToolRecorded, session.ToolRecordedData{Turn: 1, Step: 1, CallID: "call_u", Name: "lookup", Arguments: `{"k":2}`}}
		o := judge.SettleVerdict(tree(denseEvents(start, step, recorded(`{"k":1}`)), nil), tree(denseEvents(start, step, other), nil))
		Expect(o.Drift).To(BeNil())
		Expect(o.Differences).To(ConsistOf(SatisfyAll(HaveField("Session", "root"), HaveField("Field", "data.arguments"))))
	})

	It("names only what an older recording held when its request drifted", func() {
		old := request("sys-a")
		now := request("sys-bb")
		d := now[1].(session.RequestHeaderData)
		d.API, d.Settings = "openai-chat", json.RawMessage(`{"temperature":0}`)
		now[1] = d
		o := judge.SettleVerdict(tree(denseEvents(start, step, old), nil), tree(denseEvents(start, step, now), nil))
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Changes).To(ConsistOf("the system prompt changed (5 characters recorded, 6 now)"))
	})

	It("names the first message a replay no longer sends, or sends otherwise", func() {
		user := func(text string) [2]any {
			return [2]any{session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}}}
		}
		sent := func(digest string, n int) [2]any {
			return [2]any{session.TypeRequestHeader, session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: "m",
				MessagesDigest: digest, MessageCount: n}}
		}
		golden := tree(denseEvents(start, user("first"), user("second"), step, sent("two", 2)), nil)
		replay := tree(denseEvents(start, user("first"), step, sent("one", 1)), nil)
		o := judge.SettleVerdict(golden, replay)
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Changes).To(ContainElement(`message 2 is gone (recorded: user "second")`))

		edited := tree(denseEvents(start, user("first"), user("other"), step, sent("edited", 2)), nil)
		o = judge.SettleVerdict(golden, edited)
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Changes).To(ContainElement(`message 2 was user "second", now user "other"`))
	})

	It("names each request setting added, removed or changed", func() {
		with := func(settings string) []session.Event {
			r := request("sys-a")
			d := r[1].(session.RequestHeaderData)
			d.API, d.Settings = "openai-chat", json.RawMessage(settings)
			r[1] = d
			return denseEvents(start, step, r)
		}
		o := judge.SettleVerdict(tree(with(`{"seed":7,"temperature":0}`), nil), tree(with(`{"max_tokens":10,"temperature":1}`), nil))
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Changes).To(ConsistOf("the request settings changed: max_tokens added (10), seed removed (was 7), temperature 0 → 1"))
	})
})
