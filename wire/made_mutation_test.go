package wire_test

import (
	"bufio"
	"context"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a child that names its creating call while the parent's answer still streams", func() {
	// A tool call's id comes in its first delta only; the child may be
	// started as soon as the agent has read it, before the answer ends.
	It("is created: the call is known by its id from its first delta on, whatever the later deltas name", func() {
		streamed, release := make(chan struct{}), make(chan struct{})
		drv := llm.DriverFunc(func(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			if req.Session.ID != "root" || len(req.Messages) > 1 {
				return say("Hotel Lisboa."), nil
			}
			return func(yield func(llm.Chunk) bool) {
				for _, c := range []llm.Chunk{
					{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockToolCall},
					{Type: session.ChunkToolCallDelta, Index: 0, ID: "call_1", Name: "subagent", ArgumentsDelta: `{"prompt":`},
					{Type: session.ChunkToolCallDelta, Index: 0, ArgumentsDelta: `"Find hotels."}`},
				} {
					if !yield(c) {
						return
					}
				}
				close(streamed)
				select {
				case <-release:
				case <-ctx.Done():
				}
				block := &session.Block{Type: session.BlockToolCall, ID: "call_1", Name: "subagent", Arguments: `{"prompt":"Find hotels."}`}
				if yield(llm.Chunk{Type: session.ChunkBlockEnd, Index: 0, Block: block}) {
					yield(session.Finish(session.FinishToolCalls))
				}
			}, nil
		})
		h, _, url := serveWire(drv)
		req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true,"messages":[`+user("Plan a trip.")+`]}`))
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		frames := bufio.NewScanner(resp.Body)
		read := 0
		for read < 2 && frames.Scan() { // the call's two deltas, as the agent reads them
			if strings.Contains(frames.Text(), `"tool_calls"`) {
				read++
			}
		}
		Expect(read).To(Equal(2))
		<-streamed
		child := map[string]string{wire.HeaderSession: "hotels", wire.HeaderParent: "root", wire.HeaderCall: "call_1", wire.HeaderMode: "spawn"}
		code, answer := post(url, chat(user("Find hotels.")), child)
		close(release)
		for frames.Scan() {
		}
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(answer).To(ContainSubstring("Hotel Lisboa."))
		ok(url, chat(user("Plan a trip."), asked([3]string{"call_1", "subagent", `{"prompt":"Find hotels."}`}), result("call_1", "Hotel Lisboa.")), nil)
		Expect(h.Close(context.Background())).To(Succeed())
	})
})
