package gemini_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("function calls the API sends without an id", func() {
	// call_N alone repeated in every answer: a child made by turn 2's
	// first call named the same call as turn 1's plain tool call, and was
	// placed there among its parent's calls (file numbers, transcript).
	It("get ids that never repeat within a session, from the call's turn and step", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{}}}]},"finishReason":"STOP"}]}`+"\n\n")
		}))
		DeferCleanup(srv.Close)
		d, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "AIza-example", Model: "gemini-2.5-flash"})
		Expect(err).NotTo(HaveOccurred())
		idAt := func(turn, step int) string {
			seq, err := d.Stream(context.Background(), &llm.Request{Session: llm.SessionRef{ID: "root"}, Turn: turn, Step: step,
				Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}}}})
			Expect(err).NotTo(HaveOccurred())
			for c := range seq {
				if c.Type == session.ChunkToolCallDelta {
					return c.ID
				}
			}
			return ""
		}
		Expect([]string{idAt(1, 1), idAt(1, 2), idAt(2, 1), idAt(0, 0)}).To(Equal([]string{"call_1_1_0", "call_1_2_0", "call_2_1_0", "call_0"}))
	})
})
