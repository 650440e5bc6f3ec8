package judge_test

import (
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// The comparison takes events equal but for their time as equal without
// encoding them; these check that it still finds every difference the
// encoded lines have, and nothing else.
var _ = Describe("comparing a replayed log with its recording", func() {
	recorded := func() *session.Log {
		return &session.Log{
			Header: session.Header{ID: "root", CreatedAt: 1, Cwd: "/w", AgentPreset: "default"},
			Events: []session.Event{
				{Type: session.TypeTurnStart, Seq: 0, Time: 5, Data: json.RawMessage(`{"turn":1}`)},
				{Type: "x/odd", Seq: 1, Time: 6, Data: json.RawMessage(`[1]`), SourceEventSeqs: []int64{0}, SurfaceOp: json.RawMessage(`"append"`)},
				{Type: "x/plain", Seq: 2, Time: 7},
				{Type: "x/extra", Seq: 3, Time: 8, Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}},
			},
		}
	}
	// replayed is the recording with a change made to a copy.
	replayed := func(change func(l *session.Log)) *session.Log {
		l := recorded()
		l.Events = slices.Clone(l.Events)
		change(l)
		return l
	}

	DescribeTable("finds no difference where only times differ",
		func(change func(l *session.Log)) {
			Expect(judge.CompareSessionPair(recorded(), replayed(change))).To(BeNil())
		},
		Entry("nothing", func(*session.Log) {}),
		Entry("event times", func(l *session.Log) { l.Events[0].Time, l.Events[1].Time = 100, 200 }),
		Entry("createdAt", func(l *session.Log) { l.Header.CreatedAt = 99 }),
		Entry("an equal extra map of its own", func(l *session.Log) {
			l.Events[3].Extra = map[string]json.RawMessage{"k": json.RawMessage(`1`)}
		}),
	)

	DescribeTable("finds the member that differs",
		func(change func(l *session.Log), seq int64, field string) {
			d := judge.CompareSessionPair(recorded(), replayed(change))
			Expect(d).NotTo(BeNil())
			Expect(d.Seq).To(Equal(seq))
			Expect(d.Field).To(Equal(field))
		},
		Entry("the type", func(l *session.Log) { l.Events[2].Type = "x/other" }, int64(2), "type"),
		Entry("the data", func(l *session.Log) { l.Events[0].Data = json.RawMessage(`{"turn":2}`) }, int64(0), "data.turn"),
		Entry("data absent", func(l *session.Log) { l.Events[0].Data = nil }, int64(0), "data"),
		Entry("data empty rather than absent, which no reader takes", func(l *session.Log) { l.Events[2].Data = json.RawMessage{} }, int64(2), "line"),
		Entry("ignorable", func(l *session.Log) { l.Events[2].Ignorable = true }, int64(2), "ignorable"),
		Entry("sourceEventSeqs", func(l *session.Log) { l.Events[1].SourceEventSeqs = []int64{1} }, int64(1), "sourceEventSeqs[0]"),
		Entry("sourceEventSeqs empty rather than absent", func(l *session.Log) { l.Events[2].SourceEventSeqs = []int64{} }, int64(2), "sourceEventSeqs"),
		Entry("surfaceOp", func(l *session.Log) { l.Events[1].SurfaceOp = json.RawMessage(`"replace"`) }, int64(1), "surfaceOp"),
		Entry("an extra member", func(l *session.Log) {
			l.Events[3].Extra = map[string]json.RawMessage{"k": json.RawMessage(`2`)}
		}, int64(3), "k"),
		Entry("an extra member where there was none", func(l *session.Log) {
			l.Events[2].Extra = map[string]json.RawMessage{"k": json.RawMessage(`1`)}
		}, int64(2), "k"),
		Entry("the seq", func(l *session.Log) { l.Events[2].Seq = 3 }, int64(2), "seq"),
		Entry("the header's id", func(l *session.Log) { l.Header.ID = "other" }, int64(-1), "id"),
		Entry("the header's cwd", func(l *session.Log) { l.Header.Cwd = "/elsewhere" }, int64(-1), "cwd"),
		Entry("the header's parentSession", func(l *session.Log) { l.Header.ParentSession = "p" }, int64(-1), "parentSession"),
		Entry("the header's seedLength", func(l *session.Log) { l.Header.SeedLength = 1 }, int64(-1), "seedLength"),
		Entry("the header's origin", func(l *session.Log) { l.Header.Origin = "subagent" }, int64(-1), "origin"),
		Entry("the header's delegationDepth", func(l *session.Log) { l.Header.DelegationDepth = 1 }, int64(-1), "delegationDepth"),
		Entry("the header's agentPreset", func(l *session.Log) { l.Header.AgentPreset = "other" }, int64(-1), "agentPreset"),
		Entry("the header's parentCallId", func(l *session.Log) { l.Header.ParentCallID = "call_1" }, int64(-1), "parentCallId"),
		Entry("the header's mode", func(l *session.Log) { l.Header.Mode = session.ModeFork }, int64(-1), "mode"),
		Entry("a header member of its own", func(l *session.Log) {
			l.Header.Extra = map[string]json.RawMessage{"x": json.RawMessage(`1`)}
		}, int64(-1), "x"),
	)
})
