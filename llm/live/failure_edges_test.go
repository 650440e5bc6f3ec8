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
