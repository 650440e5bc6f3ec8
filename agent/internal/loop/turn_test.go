package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Guarantees of the reference loop's turns that mutation testing found
// unguarded.
var _ = Describe("a turn's steps, retries and tool arguments", func() {
	It("ends the turn aborted when its context ends while the step's tools run, making no further call", func() {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := &loop.FuncTool{Name: "stop", Description: "stop", Parameters: `{"type":"object"}`,
			Fn: func(context.Context, json.RawMessage) (string, error) { cancel(); return "stopped", nil }}
		d := newScripted().calls("root", call("c1", "stop", `{}`)).say("root", "never asked")
		r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry(stop) })
		s, err := r.rt.NewSession(ctx)
		Expect(err).NotTo(HaveOccurred())
		res, err := s.Turn(cctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Reason.Kind).To(Equal(session.TurnAborted))
		Expect(res.Reason.Message).To(Equal("cancelled between steps"))
		Expect(d.requestsOf("root")).To(HaveLen(1))
	})

	It("waits Backoff before the second attempt and doubles it before each next one", func() {
		var logs bytes.Buffer
		fail := []llm.Chunk{session.ErrorFinish("SERVER", "upstream reset")}
		d := newScripted().chunks("root", fail).chunks("root", fail).say("root", "third time lucky")
		r := newRig(d, func(c *loop.Config) {
			c.Retry = loop.RetryPolicy{MaxAttempts: 3, Backoff: time.Millisecond}
			c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		})
		_, results, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(results[0].Text).To(Equal("third time lucky"))
		Expect(logs.String()).To(ContainSubstring("attempt=2 code=SERVER delay=1ms"))
		Expect(logs.String()).To(ContainSubstring("attempt=3 code=SERVER delay=2ms"))
	})

	It("runs a tool called with arguments of only white space as if called with {}", func() {
		var got json.RawMessage
		echo := &loop.FuncTool{Name: "echo", Description: "echo", Parameters: `{"type":"object"}`,
			Fn: func(_ context.Context, args json.RawMessage) (string, error) { got = args; return "echoed", nil }}
		d := newScripted().calls("root", call("c1", "echo", " \n ")).say("root", "done")
		r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry(echo) })
		_, _, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(`{}`))
		res := decode[session.ToolResultData](eventsOf(r.log("root"), session.TypeToolResult)[0])
		Expect(res.Message.Content[0].IsError).To(BeFalse())
	})

	It("keeps the driver's refusal to start a call in the error chain", func() {
		refused := errors.New("no route to the model")
		d := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) { return nil, refused })
		r := newRig(newScripted(), func(c *loop.Config) { c.Driver = d })
		_, _, err := r.rt.Run(ctx, "go")
		Expect(err).To(MatchError(refused))
		Expect(err).To(MatchError(loop.ErrNotStarted))
	})

	It("refuses null arguments as no JSON object, without running the tool", func() {
		ran := false
		echo := &loop.FuncTool{Name: "echo", Description: "echo", Parameters: `{"type":"object"}`,
			Fn: func(context.Context, json.RawMessage) (string, error) { ran = true; return "echoed", nil }}
		d := newScripted().calls("root", call("c1", "echo", "null")).say("root", "done")
		r := newRig(d, func(c *loop.Config) { c.Tools = loop.NewRegistry(echo) })
		_, _, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		Expect(ran).To(BeFalse())
		res := decode[session.ToolResultData](eventsOf(r.log("root"), session.TypeToolResult)[0])
		Expect(res.Message.Content[0].IsError).To(BeTrue())
		Expect(res.Message.Content[0].Content[0].Text).To(ContainSubstring("arguments of echo must be a JSON object, got null"))
	})

	It("names every missing required argument at once", func() {
		d := newScripted().calls("root", call("c1", loop.SpawnToolName, `{}`)).say("root", "done")
		r := newRig(d)
		_, _, err := r.rt.Run(ctx, "go")
		Expect(err).NotTo(HaveOccurred())
		res := decode[session.ToolResultData](eventsOf(r.log("root"), session.TypeToolResult)[0])
		Expect(res.Message.Content[0].IsError).To(BeTrue())
		Expect(res.Message.Content[0].Content[0].Text).To(ContainSubstring(`missing required "description"; missing required "prompt"`))
	})
})
