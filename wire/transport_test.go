package wire_test

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the in-process transport", func() {
	It("hands over the status and the headers as of the first write, as net/http does", func() {
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusCreated)
			w.Header().Set("X-Late", "1") // after the status: not sent
			_, _ = io.WriteString(w, "body")
		})
		resp, err := (&http.Client{Transport: wire.Transport(h)}).Get("http://agentsnap.invalid/")
		Expect(err).NotTo(HaveOccurred())
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		Expect(string(b)).To(Equal("body"))
		Expect(resp.StatusCode).To(Equal(http.StatusCreated))
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/plain"))
		Expect(resp.Header.Values("X-Late")).To(BeEmpty())
	})

	It("records the whole answer when the agent stops reading mid-stream", func() {
		store := memory.New()
		h, err := wire.NewHandler(wire.Config{Driver: sayDriver, Store: store})
		Expect(err).NotTo(HaveOccurred())
		client := &http.Client{Transport: wire.Transport(h)}
		resp, err := client.Post(wire.BaseURL+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		first := make([]byte, 4096)
		n, err := resp.Body.Read(first) // one write of the handler: the first frame
		Expect(err).NotTo(HaveOccurred())
		Expect(string(first[:n])).To(ContainSubstring(`"content":"hello"`))
		Expect(string(first[:n])).NotTo(ContainSubstring("root"), "the rest of the answer is still unread")
		Expect(resp.Body.Close()).To(Succeed())

		Expect(h.Close(context.Background())).To(Succeed())
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		text, err := transcript.Render([]*session.Log{l})
		Expect(err).NotTo(HaveOccurred())
		Expect(text).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    assistant: hello root
  ended completed
`))
	})
})

var _ = Describe("an answer cut because the agent's context ended", func() {
	It("reads as the context's error, as from a real connection, not as a clean end of stream", func() {
		started := make(chan struct{})
		hang := llm.DriverFunc(func(ctx context.Context, _ *llm.Request) (iter.Seq[llm.Chunk], error) {
			return func(yield func(llm.Chunk) bool) {
				if !yield(session.Chunk{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockText}) {
					return
				}
				close(started)
				<-ctx.Done()
				yield(session.Finish(session.FinishAborted))
			}, nil
		})
		h, err := wire.NewHandler(wire.Config{Driver: hang, Store: memory.New()})
		Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, wire.BaseURL+"/chat/completions",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		resp, err := (&http.Client{Transport: wire.Transport(h)}).Do(req)
		Expect(err).NotTo(HaveOccurred())
		<-started
		cancel()
		_, err = io.ReadAll(resp.Body)
		Expect(err).To(MatchError(context.Canceled))
		Expect(h.Close(context.Background())).To(Succeed())
	})
})
