package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var ctx = context.Background()

var oneStep = []string{"step/start", "request/header", "assistant/message", "step/end"}

func turnOf(steps ...[]string) []string {
	out := []string{"turn/start", "user/message"}
	for _, s := range steps {
		out = append(out, s...)
	}
	return append(out, "turn/end")
}

func toolStep(n int) []string {
	out := []string{"step/start", "request/header", "assistant/message"}
	for range n {
		out = append(out, "tool/call")
	}
	for range n {
		out = append(out, "tool/result")
	}
	return append(out, "step/end")
}

var _ = Describe("a turn", func() {
	It("writes the events of the design in order, and the chunks it streamed", func() {
		r := newRig(newScripted().say("root", "Hello there, world."))
		s, res, err := r.rt.Run(ctx, "hi")
		Expect(err).NotTo(HaveOccurred())
		Expect(res[0].Text).To(Equal("Hello there, world."))
		l := r.log(s.ID())
		Expect(compact(l.Events)).To(Equal(turnOf(oneStep)))
		chunks := eventsOf(l, session.TypeAssistantChunk)
		var kinds []string
		for _, e := range chunks {
			d, err := session.DecodeChunkData(e.Data)
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Turn).To(Equal(1))
			Expect(d.Step).To(Equal(1))
			Expect(d.Attempt).To(Equal(1))
			kinds = append(kinds, d.Chunk.Type)
		}
		Expect(kinds).To(Equal([]string{"block-start", "text-delta", "text-delta", "text-delta", "block-end", "usage", "finish"}))
		end := decode[session.TurnEndData](l.Events[len(l.Events)-1])
		Expect(end.Reason.Kind).To(Equal(session.TurnCompleted))
	})

	It("records what each call sent in request/header, so drift shows at the call", func() {
		d := newScripted().say("root", "one").say("root", "two")
		r := newRig(d)
		s, _, err := r.rt.Run(ctx, "first", "second")
		Expect(err).NotTo(HaveOccurred())
		hs := eventsOf(r.log(s.ID()), session.TypeRequestHeader)
		Expect(hs).To(HaveLen(2))
		h1, h2 := decode[session.RequestHeaderData](hs[0]), decode[session.RequestHeaderData](hs[1])
		Expect(h1.Provider).To(Equal("scripted"))
		Expect(h1.Model).To(Equal("test-model"))
		Expect(h1.ToolNames).To(Equal([]string{loop.SpawnToolName, loop.ForkToolName}))
		Expect(h1.MessageCount).To(Equal(1))
		Expect(h2.MessageCount).To(Equal(3))
		Expect(h2.MessageDigests[:1]).To(Equal(h1.MessageDigests), "the first message is the same in both calls")
		Expect(h2.SystemDigest).To(Equal(h1.SystemDigest))

		other := newRig(newScripted().say("root", "one"), func(c *loop.Config) { c.System = "A different prompt." })
		s2, _, err := other.rt.Run(ctx, "first")
		Expect(err).NotTo(HaveOccurred())
		h3 := decode[session.RequestHeaderData](eventsOf(other.log(s2.ID()), session.TypeRequestHeader)[0])
		Expect(h3.SystemDigest).NotTo(Equal(h1.SystemDigest))
		Expect(h3.MessagesDigest).To(Equal(h1.MessagesDigest))
	})

	It("turns a stream without finish into an error finish and an error turn", func() {
		d := newScripted()
		answer := llmChunks("partial")
		d.chunks("root", answer[:len(answer)-1])
		r := newRig(d)
		s, err := r.rt.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		res, err := s.Turn(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Reason.Kind).To(Equal(session.TurnError))
		Expect(res.Reason.Message).To(ContainSubstring("NO_FINISH"))
		chunks := eventsOf(r.log(s.ID()), session.TypeAssistantChunk)
		last, _ := session.DecodeChunkData(chunks[len(chunks)-1].Data)
		Expect(last.Chunk.Reason.Kind).To(Equal(session.FinishError))
		Expect(eventsOf(r.log(s.ID()), session.TypeAssistantMessage)).To(BeEmpty())
	})

	It("retries a retryable error finish and records every attempt", func() {
		d := newScripted()
		d.chunks("root", []session.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")})
		d.say("root", "recovered")
		r := newRig(d, func(c *loop.Config) { c.Retry = loop.RetryPolicy{MaxAttempts: 3} })
		s, res, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(res[0].Text).To(Equal("recovered"))
		l := r.log(s.ID())
		attempts := map[int]int{}
		for _, e := range eventsOf(l, session.TypeAssistantChunk) {
			cd, _ := session.DecodeChunkData(e.Data)
			attempts[cd.Attempt]++
		}
		Expect(attempts).To(HaveKeyWithValue(1, 1))
		Expect(attempts).To(HaveKey(2))
		Expect(eventsOf(l, session.TypeRequestHeader)).To(HaveLen(2))
		Expect(eventsOf(l, session.TypeAssistantMessage)).To(HaveLen(1))
	})

	It("ends the turn with an error and returns it when the model call cannot start", func() {
		r := newRig(newScripted())
		s, err := r.rt.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		res, err := s.Turn(ctx, "go")
		Expect(err).To(MatchError(ContainSubstring("no answer left for session root")))
		Expect(res.Reason.Kind).To(Equal(session.TurnError))
		l := r.log(s.ID())
		Expect(l.Events[len(l.Events)-1].Type).To(Equal(session.TypeTurnEnd))
	})

	It("ends the turn aborted when the context is cancelled mid-stream", func() {
		d := newScripted()
		cctx, cancel := context.WithCancel(ctx)
		full := llmChunks("never finished")
		// The driver's stream cancels the context after the first chunk and
		// then stops without a finish, as a driver does on cancellation.
		d.chunks("root", full[:1])
		d.before = func(*llm.Request) { cancel() }
		r := newRig(d)
		s, err := r.rt.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		res, err := s.Turn(cctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Reason.Kind).To(Equal(session.TurnAborted))
	})

	DescribeTable("tool calls the runtime refuses with an error result the model can read",
		func(part session.Part, want string) {
			d := newScripted().calls("root", part).say("root", "ok")
			echo := &loop.FuncTool{Name: "echo", Description: "echo", Parameters: `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
				Fn: func(_ context.Context, args json.RawMessage) (string, error) { return string(args), nil }}
			r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry(echo) })
			s, _, err := r.rt.Run(ctx, "go")
			Expect(err).NotTo(HaveOccurred())
			res := decode[session.ToolResultData](eventsOf(r.log(s.ID()), session.TypeToolResult)[0])
			Expect(res.Message.Content[0].IsError).To(BeTrue())
			Expect(res.Message.Content[0].Content[0].Text).To(ContainSubstring(want))
		},
		Entry("unknown tool", call("c1", "nope", `{}`), `unknown tool "nope"; the tools are: echo`),
		Entry("arguments not an object", call("c1", "echo", `[1]`), "must be a JSON object"),
		Entry("missing required member", call("c1", "echo", `{}`), `missing required "text"`),
		Entry("wrong member type", call("c1", "echo", `{"text":3}`), `"text" must be string, got integer`),
	)

	It("says an agent offers no tools when a call names one it lacks and there are none", func() {
		d := newScripted().calls("root", call("c1", "subagent_spawn", `{}`)).say("root", "ok")
		r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry() })
		s, _, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		res := decode[session.ToolResultData](eventsOf(r.log(s.ID()), session.TypeToolResult)[0])
		Expect(res.Message.Content[0].IsError).To(BeTrue())
		Expect(res.Message.Content[0].Content[0].Text).To(Equal(`unknown tool "subagent_spawn"; the agent offers no tools (scenario.json's agent.tools lists the ones it offers)`))
	})

	It("ends a turn whose model keeps calling tools after Config.MaxSteps steps", func() {
		d := newScripted()
		for i := range 4 {
			d.calls("root", call(fmt.Sprintf("c%d", i), "echo", `{"text":"again"}`))
		}
		echo := &loop.FuncTool{Name: "echo", Description: "echo", Parameters: `{"type":"object"}`,
			Fn: func(_ context.Context, args json.RawMessage) (string, error) { return string(args), nil }}
		r := newRig(d, func(c *loop.Config) { c.Tools, c.MaxSteps = loop.NewRegistry(echo), 3 })
		s, err := r.rt.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		res, err := s.Turn(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Reason).To(Equal(session.EndReason{Kind: session.TurnError, Message: "the model kept calling tools for 3 steps (Config.MaxSteps)"}))
		Expect(eventsOf(r.log(s.ID()), session.TypeStepStart)).To(HaveLen(3))
		Expect(d.requestsOf("root")).To(HaveLen(3))
	})

	It("writes byte-identical logs for the same run", func() {
		run := func() []byte {
			d := newScripted().calls("root", spawn("c1", "a"), fork("c2", "b")).say("root/c1", "A").say("root/c2", "B").say("root", "done")
			r := newRig(d)
			s, _, err := r.rt.Run(ctx, "go")
			Expect(err).NotTo(HaveOccurred())
			var all []byte
			for _, id := range []string{s.ID(), "root/c1", "root/c2"} {
				l := r.log(id)
				all = append(all, session.Encode(&l.Header, l.Events)...)
			}
			return all
		}
		first := run()
		for range 5 {
			Expect(bytes.Equal(run(), first)).To(BeTrue())
		}
	})
})
