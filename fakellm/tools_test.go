package fakellm_test

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// toolTurn appends a turn of one step whose model call answers text and
// whose tools recorded a result for call_0 and an MCP answer of the clock
// server's tool "now".
func (b *builder) toolTurn(turn int, text, result string, now int) *builder {
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"})
	b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}})
	b.ev(session.TypeStepStart, session.StepData{Turn: turn, Step: 1})
	b.chunks(turn, 1, 1, answer(text)...)
	b.ev(session.TypeMCPCall, session.MCPCallData{Turn: turn, Step: 1, Server: "clock", Method: "tools/call",
		Params: json.RawMessage(`{"name":"now","arguments":{}}`), Result: json.RawMessage(`{"t":` + string(rune('0'+now)) + `}`)})
	b.ev(session.TypeToolRecorded, session.ToolRecordedData{Turn: turn, Step: 1, CallID: "call_0", Name: "lookup", Arguments: `{"k":1}`, Result: session.ToolOutput{Text: result}})
	b.ev(session.TypeStepEnd, session.StepData{Turn: turn, Step: 1})
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
}

var _ = Describe("recorded tools", func() {
	var (
		drv   *fakellm.Driver
		root  = liveRoot("root")
		child = liveChild("root/call_f", "root", "call_f", session.ModeFork)
		ctx   = context.Background()
	)
	lookup := func(args string) session.ToolRecordedData {
		return session.ToolRecordedData{Turn: 2, Step: 1, CallID: "call_0", Name: "lookup", Arguments: args}
	}
	now := func(params string) session.MCPCallData {
		return session.MCPCallData{Server: "clock", Method: "tools/call", Params: json.RawMessage(params)}
	}
	logs := func() []*session.Log {
		r := rootLog("root").toolTurn(1, "a", "r1", 1)
		c := childLog("session.1.jsonl", "root/call_f", r, "call_f", session.ModeFork).seedFrom(r).toolTurn(2, "c", "c1", 3)
		r.toolTurn(2, "b", "r2", 2)
		return []*session.Log{r.log(), c.log()}
	}
	BeforeEach(func() {
		var err error
		drv, err = fakellm.New(logs())
		Expect(err).NotTo(HaveOccurred())
	})

	It("derives a session's records from its own events only", func() {
		s := drv.Scripts()
		Expect(s[0].Tools).To(HaveLen(2))
		Expect(s[1].Tools).To(HaveLen(1))
		Expect(s[1].Tools[0].Result.Text).To(Equal("c1"))
		Expect(s[1].MCP).To(HaveLen(1))
		Expect(string(s[1].MCP[0].Result)).To(Equal(`{"t":3}`))
	})

	It("serves the n-th call of an id the n-th record of that id, a fork child its own", func() {
		out, err := drv.ReplayTool(ctx, root, lookup(`{"k":1}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("r1"))
		out, err = drv.ReplayTool(ctx, child, lookup(`{"k":1}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("c1"), "not the root's r1 in the child's seed")
		out, err = drv.ReplayTool(ctx, root, lookup(`{"k":1}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("r2"))

		_, err = drv.ReplayTool(ctx, root, lookup(`{"k":1}`))
		Expect(err).To(MatchError(fakellm.ErrUnrecordedTool))
		Expect(err.Error()).To(HavePrefix("fakellm: unrecorded tool call: session root (session.jsonl): tool lookup, call call_0 (turn 2 step 1): the recording holds no result for it (recorded tool calls of this session: lookup call_0, lookup call_0) — "))
	})

	It("with the seed not sliced off, serves a fork child its parent's record", func() {
		broken, err := fakellm.New(logs(), fakellm.WithDeriveOptions(fakellm.DeriveOptions{IgnoreSeed: true}))
		Expect(err).NotTo(HaveOccurred())
		_, _ = broken.ReplayTool(ctx, root, lookup(`{"k":1}`))
		out, err := broken.ReplayTool(ctx, child, lookup(`{"k":1}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Text).To(Equal("r1"), "the bug the slice prevents")
	})

	It("refuses a call with other arguments or another tool than the record of its id: drift, naming the call", func() {
		_, err := drv.ReplayTool(ctx, root, lookup(`{"k":2}`))
		Expect(err).To(MatchError(fakellm.ErrToolDrift))
		Expect(err.Error()).To(HavePrefix(`fakellm: tool drift: session root (session.jsonl): call call_0 (turn 2 step 1): tool lookup was called with {"k":2}, the recording's lookup with {"k":1} — the agent calls the tool otherwise than it did while recording; re-record with: `))
		other := lookup(`{"k":1}`)
		other.Name = "search"
		_, err = drv.ReplayTool(ctx, child, other)
		Expect(err).To(MatchError(fakellm.ErrToolDrift))
		Expect(drv.Check()).To(MatchError(fakellm.ErrToolDrift), "the check keeps what the agent may have swallowed")
	})

	// With every recorded call and result served, a swallowed failure is
	// the one thing Check has to say.
	It("fails the check on a tool call that drifted though nothing recorded is left", func() {
		b := rootLog("root")
		b.ev(session.TypeTurnStart, session.TurnStartData{Turn: 2, Trigger: "user"})
		b.ev(session.TypeToolRecorded, session.ToolRecordedData{Turn: 2, Step: 1, CallID: "call_0", Name: "lookup", Arguments: `{"k":1}`, Result: session.ToolOutput{Text: "r1"}})
		b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: 2, Reason: session.EndReason{Kind: session.TurnCompleted}})
		only, err := fakellm.New([]*session.Log{b.log()})
		Expect(err).NotTo(HaveOccurred())
		_, err = only.ReplayTool(ctx, root, lookup(`{"k":2}`))
		Expect(err).To(MatchError(fakellm.ErrToolDrift))
		err = only.Check()
		Expect(err).To(MatchError(fakellm.ErrToolDrift))
		Expect(err).NotTo(MatchError(fakellm.ErrNotConsumed), "the drifted call used its record")
		Expect(err.Error()).To(HavePrefix("fakellm: 1 call to a recorded tool, MCP server or token count could not be served during the replay:\n  fakellm: tool drift: session root (session.jsonl): call call_0"))
	})

	It("answers an MCP request with the record of the same server, method and params, the n-th the n-th, a fork child its own", func() {
		d, err := drv.ReplayMCP(ctx, root, now(`{ "arguments": {}, "name": "now" }`))
		Expect(err).NotTo(HaveOccurred(), "params match in canonical form")
		Expect(string(d.Result)).To(Equal(`{"t":1}`))
		d, err = drv.ReplayMCP(ctx, child, now(`{"name":"now","arguments":{}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(d.Result)).To(Equal(`{"t":3}`))
		d, err = drv.ReplayMCP(ctx, root, now(`{"name":"now","arguments":{}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(d.Result)).To(Equal(`{"t":2}`))

		_, err = drv.ReplayMCP(ctx, root, now(`{"name":"now","arguments":{"zone":"UTC"}}`))
		Expect(err).To(MatchError(fakellm.ErrUnrecordedTool))
		Expect(err.Error()).To(HavePrefix(`fakellm: unrecorded tool call: session root (session.jsonl): MCP request tools/call to server "clock" with params {"arguments":{"zone":"UTC"},"name":"now"}: the recording holds no answer to it (recorded MCP requests of this session: clock tools/call {"arguments":{},"name":"now"}; clock tools/call {"arguments":{},"name":"now"}) — `))
	})

	It("checks that every recorded result of a session that ran was asked for, naming what was not", func() {
		_, err := drv.ReplayTool(ctx, root, lookup(`{"k":1}`))
		Expect(err).NotTo(HaveOccurred())
		err = drv.Check()
		Expect(err).To(MatchError(fakellm.ErrNotConsumed))
		Expect(err.Error()).To(ContainSubstring("session root (session.jsonl): live session root never asked for the recorded result of tool lookup, call call_0 (turn 2 step 1)"))
		Expect(err.Error()).To(ContainSubstring(`session root (session.jsonl): live session root never made the recorded MCP request tools/call to server "clock" with params {"arguments":{},"name":"now"} (turn 1 step 1)`))
		Expect(err.Error()).To(ContainSubstring("session root/call_f (fork; session.1.jsonl): never called (1 recorded call)"))
	})
})
