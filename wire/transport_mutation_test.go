package wire_test

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a replayed answer longer than the transport buffers ahead of its reader", func() {
	// A replay that never waits is served on the agent's goroutine before
	// the agent reads a byte: its answer must go in whole, however long.
	It("is served whole on the agent's goroutine", func(ctx SpecContext) {
		words := strings.Repeat("word ", 30000) // ~150 KB of text, streamed in many frames
		long := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return say(words), nil
		})
		store := memory.New()
		rec, err := wire.NewHandler(wire.Config{Driver: long, Store: store})
		Expect(err).NotTo(HaveOccurred())
		body := `{"model":"m","stream":true,"messages":[` + user("Write at length.") + `]}`
		send := func(h *wire.Handler) (int, string) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, wire.BaseURL+"/chat/completions", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			resp, err := (&http.Client{Transport: wire.Transport(h)}).Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return resp.StatusCode, string(b)
		}
		code, recorded := send(rec)
		Expect(code).To(Equal(http.StatusOK))
		Expect(len(recorded)).To(BeNumerically(">", 128<<10))
		Expect(rec.Close(ctx)).To(Succeed())
		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())

		drv, err := fakellm.New([]*session.Log{l})
		Expect(err).NotTo(HaveOccurred())
		Expect(drv.NeverWaits()).To(BeTrue())
		h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New()})
		Expect(err).NotTo(HaveOccurred())
		code, replayed := send(h)
		Expect(code).To(Equal(http.StatusOK))
		Expect(replayed).To(Equal(recorded))
		Expect(h.Close(ctx)).To(Succeed())
		Expect(drv.Check()).To(Succeed())
	}, SpecTimeout(time.Minute))
})
