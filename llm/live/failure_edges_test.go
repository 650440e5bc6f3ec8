package live_test

import (
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// Guarantees of the failure messages and the frame limit that mutation
// testing found unguarded.
var _ = Describe("failure messages at their bounds", func() {
	sc := live.NewScrubber("openai")

	It("keeps a message of exactly 400 bytes and cuts one of 401, marking the cut", func() {
		Expect(sc.Clip(strings.Repeat("a", 400))).To(Equal(strings.Repeat("a", 400)))
		Expect(sc.Clip(strings.Repeat("a", 401))).To(Equal(strings.Repeat("a", 400) + "…"))
	})

	It("cuts a long message on a rune boundary, never inside a character", func() {
		got := sc.Clip(strings.Repeat("a", 399) + "é" + strings.Repeat("b", 50))
		Expect(utf8.ValidString(got)).To(BeTrue(), "%q", got)
		Expect(got).To(Equal(strings.Repeat("a", 399) + "…"))
	})

	It("never cuts off the hint of an HTTP error, however long the provider's message", func() {
		body := []byte(`{"error":{"message":"` + strings.Repeat("x", 1000) + `"}}`)
		fin := live.StatusFinish(401, body, sc, "; check the API key")
		Expect(fin.Reason.Failure.Code).To(Equal(live.CodeAuth))
		Expect(fin.Reason.Failure.Message).To(HavePrefix("openai: HTTP 401 Unauthorized: xxx"))
		Expect(fin.Reason.Failure.Message).To(HaveSuffix("…; check the API key"))
	})

	// An unrecordable call's message is one failure message: what the
	// model called is cut to leave room for the note and what to do.
	It("bounds an unrecordable call's whole message to 400 bytes, its note and todo whole", func() {
		const todo = "give the agent that tool as a function tool"
		for _, what := range []string{strings.Repeat("w", 1000), strings.Repeat("é", 300)} {
			fin := live.UnrecordableFinish(sc, "openai: stream frame 1: the model called "+what, todo)
			msg := fin.Reason.Failure.Message
			Expect(len(msg)).To(BeNumerically("<=", 400), "%q", msg)
			Expect(utf8.ValidString(msg)).To(BeTrue(), "%q", msg)
			Expect(msg).To(HavePrefix("openai: stream frame 1: the model called "))
			Expect(msg).To(HaveSuffix("…; agentsnap records function calls only: " + todo))
			Expect(live.Unrecordable(fin.Reason.Failure)).To(BeTrue())
		}
		By("a todo longer than half the bound is cut to half, what keeping the rest")
		msg := live.UnrecordableFinish(sc, strings.Repeat("w", 1000), strings.Repeat("t", 1000)).Reason.Failure.Message
		Expect(msg).To(Equal(strings.Repeat("w", 197) + "…" + "; agentsnap records function calls only: " + strings.Repeat("t", 200-3-41) + "…"))
		By("a message within the bound is kept whole")
		msg = live.UnrecordableFinish(sc, "openai: stream frame 1: the model called a tool", todo).Reason.Failure.Message
		Expect(msg).To(Equal("openai: stream frame 1: the model called a tool; agentsnap records function calls only: " + todo))
	})

	It("classifies an error object in the stream by a numeric code up to 599", func() {
		fin := live.StreamErrorFinish([]byte(`{"error":{"message":"gateway gone","code":599}}`), sc)
		Expect(fin.Reason.Kind).To(Equal(session.FinishError))
		Expect(fin.Reason.Failure.Code).To(Equal(live.CodeServer))
		Expect(fin.Reason.Failure.Status).To(Equal(599))
	})
})

var _ = Describe("the SSE frame limit at its bound", func() {
	It("refuses a frame whose joined data is one byte over the limit, and takes one at the limit", func() {
		_, err := live.ParseSSE(strings.NewReader("data: 0123456789\ndata: 0123456789\n\n"), 20) // 21 bytes joined
		Expect(err).To(MatchError(live.ErrFrameTooLarge))
		frames, err := live.ParseSSE(strings.NewReader("data: 0123456789\ndata: 012345678\n\n"), 20) // 20 bytes joined
		Expect(err).NotTo(HaveOccurred())
		Expect(frames).To(Equal([]string{"0123456789\n012345678"}))
	})
})
