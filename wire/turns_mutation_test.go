package wire_test

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a turn after one whose model call failed", func() {
	// The failed turn's question stays in the conversation the agent sends;
	// every user message after it — a context message and the new
	// question — starts the next turn.
	It("starts with every user message the request adds to the log's conversation", func(ctx SpecContext) {
		drv := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			if len(req.Messages) == 1 {
				return slices.Values([]llm.Chunk{session.ErrorFinish("BAD_REQUEST", "the request was refused")}), nil
			}
			return say("team-atlas."), nil
		})
		h, store, url := serveWire(drv)
		code, _ := post(url, chat(user("Which release is current?")), nil)
		Expect(code).NotTo(Equal(http.StatusOK), "the recorded failure")
		ok(url, chat(user("Which release is current?"), user("Context: the release is v2.4.1."), user("Who owns it?")), nil)
		Expect(h.Close(ctx)).To(Succeed())
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		var prompts []string // "turn: text" of each user message
		turn := 0
		for _, e := range l.Events {
			switch e.Type {
			case session.TypeHistoryReplace:
				Fail("the request goes on from the log's conversation: no history/replace")
			case session.TypeTurnStart:
				var d session.TurnStartData
				Expect(e.Decode(&d)).To(Succeed())
				turn = d.Turn
			case session.TypeUserMessage:
				var m session.Message
				Expect(e.Decode(&m)).To(Succeed())
				prompts = append(prompts, fmt.Sprintf("%d: %s", turn, m.Text()))
			}
		}
		Expect(prompts).To(Equal([]string{"1: Which release is current?", "2: Context: the release is v2.4.1.", "2: Who owns it?"}))
	})
})
