package wire_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolCounter answers every call with text and counts a request's tokens
// as one per tool and message: a count that changes with the tool set.
type toolCounter struct{}

func (toolCounter) Stream(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
	return say("Counted."), nil
}

func (toolCounter) CountTokens(_ context.Context, req *llm.Request) (int64, error) {
	return int64(100*len(req.Tools) + len(req.Messages)), nil
}

var _ = Describe("a token count whose request offers another tool set than the recording's", func() {
	countBody := func(tool string) string {
		return `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Which release is current?"}],` +
			`"tools":[{"name":"` + tool + `","description":"Looks a fact up.","input_schema":{"type":"object"}}]}`
	}
	postCount := func(h http.Handler, body string) (int, string) {
		r, err := http.NewRequest(http.MethodPost, "http://agentsnap.invalid/v1/messages/count_tokens", strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}

	It("is counted with its tools while recording, and is drift in a replay, naming the session", func(ctx SpecContext) {
		store := memory.New()
		rec, err := wire.NewHandler(wire.Config{Driver: toolCounter{}, Store: store, Formats: []wire.Format{wire.AnthropicMessages}})
		Expect(err).NotTo(HaveOccurred())
		code, answer := postCount(rec, countBody("lookup"))
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(answer).To(MatchJSON(`{"input_tokens":101}`), "the tools are counted")
		Expect(rec.Close(ctx)).To(Succeed())
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())

		replay := func(tool string) (int, string, error) {
			drv, err := fakellm.New([]*session.Log{l})
			Expect(err).NotTo(HaveOccurred())
			h, err := wire.NewHandler(wire.Config{Driver: drv, ToolReplay: drv, Store: memory.New(), Formats: []wire.Format{wire.AnthropicMessages}})
			Expect(err).NotTo(HaveOccurred())
			code, answer := postCount(h, countBody(tool))
			_ = h.Close(ctx)
			return code, answer, drv.Check()
		}
		code, answer, err = replay("lookup")
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(answer).To(MatchJSON(`{"input_tokens":101}`))
		Expect(err).NotTo(HaveOccurred())

		code, answer, err = replay("search")
		Expect(code).To(Equal(http.StatusBadRequest), answer)
		Expect(answer).To(ContainSubstring("token count drift"))
		Expect(err).To(MatchError(And(ContainSubstring("session root"), ContainSubstring("token count request 1 of the session"),
			ContainSubstring("counts another conversation, system prompt, tool set, model or settings"))))
	})
})
