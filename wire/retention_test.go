package wire_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A session's next request is read against its last one, so the handler
// keeps the last request; these specs hold it to keeping no more: an
// agent resends its whole conversation on every call, and every body
// kept is the conversation so far — quadratic in its length.
var _ = Describe("a long session", func() {
	const turns, padding = 80, 64 << 10
	big := strings.Repeat("x", padding)

	// conversation is the body of each turn's request in one API's terms:
	// the first user message carries the padding; every answer is the
	// driver's "done", sent back as the API writes it.
	type api struct {
		path                   string
		wrap                   func(msgs []string) string
		user, assistant, first func(text string) string
	}
	chat := api{path: "/v1/chat/completions",
		wrap: func(m []string) string {
			return `{"model":"m","stream":true,"messages":[` + strings.Join(m, ",") + `]}`
		},
		user:      user,
		assistant: assistant}
	claude := api{path: "/v1/messages",
		wrap: func(m []string) string {
			return `{"model":"m","max_tokens":64,"stream":true,"messages":[` + strings.Join(m, ",") + `]}`
		},
		user:      user,
		assistant: assistant}
	responses := api{path: "/v1/responses",
		wrap: func(m []string) string { return `{"model":"m","stream":true,"input":[` + strings.Join(m, ",") + `]}` },
		user: user,
		assistant: func(text string) string {
			return fmt.Sprintf(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}`, text)
		}}
	gemini := api{path: "/v1beta/models/m:streamGenerateContent",
		wrap: func(m []string) string { return `{"contents":[` + strings.Join(m, ",") + `]}` },
		user: func(text string) string { return fmt.Sprintf(`{"role":"user","parts":[{"text":%q}]}`, text) },
		assistant: func(text string) string {
			return fmt.Sprintf(`{"role":"model","parts":[{"text":%q}]}`, text)
		}}

	DescribeTable("keeps only its last request's body, not every body it sent",
		func(a api) {
			bodies := make([]string, turns)
			var msgs []string
			for i := range turns {
				text := fmt.Sprintf("Question %d?", i+1)
				if i == 0 {
					text = big
				}
				msgs = append(msgs, a.user(text))
				bodies[i] = a.wrap(msgs)
				msgs = append(msgs, a.assistant("done"))
			}
			clock := time.UnixMilli(946684800000)
			h, err := wire.NewHandler(wire.Config{Driver: script(nil), Store: memory.New(), Clock: func() time.Time { return clock }})
			Expect(err).NotTo(HaveOccurred())
			before := liveHeap()
			for i, b := range bodies {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, a.path, strings.NewReader(b)))
				Expect(w.Code).To(Equal(http.StatusOK), "turn %d: %s", i+1, w.Body)
			}
			grown := liveHeap() - before
			runtime.KeepAlive(bodies) // the test's own copies count neither before nor after
			// The padding is kept a few times over, each once: in the log
			// and the journal, in the last body and what was read of it.
			// Keeping every body would keep it once per turn.
			Expect(grown).To(BeNumerically("<", turns/4*padding), "live heap grew by %d KB over %d turns of a %d KB conversation", grown>>10, turns, padding>>10)
			Expect(h.Close(context.Background())).To(Succeed())
		},
		Entry("Chat Completions", chat),
		Entry("Anthropic Messages", claude),
		Entry("OpenAI Responses", responses),
		Entry("Gemini", gemini),
	)
})

// liveHeap is the bytes of live heap objects, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
