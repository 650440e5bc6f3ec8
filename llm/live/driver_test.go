package live_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// plainAPI is the least API a driver needs: every frame's data is a text
// delta, and the answer is complete after its first frame.
type plainAPI struct{}

func (plainAPI) Name() string                                { return "plain" }
func (plainAPI) Prefix() string                              { return "plain" }
func (plainAPI) Endpoint(base *url.URL, _ string) string     { return base.String() + "/stream" }
func (plainAPI) Authorize(h http.Header, key string)         { h.Set("Authorization", "Bearer "+key) }
func (plainAPI) Encode(*llm.Request, string) ([]byte, error) { return []byte(`{}`), nil }
func (plainAPI) Decoder(live.Scrubber) live.Decoder          { return &plainDecoder{} }
func (plainAPI) Hint(int, string) string                     { return "" }

type plainDecoder struct{ complete bool }

func (d *plainDecoder) Event(_ string, data []byte) ([]session.Chunk, *session.Chunk) {
	d.complete = true
	return []session.Chunk{{Type: session.ChunkTextDelta, Text: string(data)}}, nil
}
func (d *plainDecoder) Complete() bool { return d.complete }
func (d *plainDecoder) End() []session.Chunk {
	return []session.Chunk{session.Finish(session.FinishStop)}
}

// Guarantees of the HTTP driver that mutation testing found unguarded.
var _ = Describe("the live driver's retries and stream end, at their bounds", func() {
	It("waits the longer of its backoff and a shorter Retry-After, and says it gave up after the second attempt", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"message":"overloaded"}}`))
		}))
		defer srv.Close()
		var waits []time.Duration
		d, err := live.New(plainAPI{}, live.Config{BaseURL: srv.URL, Model: "m", MaxRetries: 1,
			BackoffBase: 4 * time.Second, MaxBackoff: 10 * time.Second,
			Sleep: func(_ context.Context, w time.Duration) error { waits = append(waits, w); return nil }})
		Expect(err).NotTo(HaveOccurred())
		out := streamAll(d)
		Expect(waits).To(Equal([]time.Duration{4 * time.Second}))
		Expect(out).To(HaveLen(1))
		Expect(out[0].Reason.Failure.Code).To(Equal(live.CodeServer))
		Expect(out[0].Reason.Failure.Message).To(HaveSuffix("(gave up after 2 attempts)"))
	})

	It("fails a stream whose frame is over the limit even after the answer said it was complete", func() {
		input := "data: a\n\ndata: " + strings.Repeat("x", 9<<20) + "\n\n"
		var out []session.Chunk
		live.DecodeStream(context.Background(), strings.NewReader(input), &plainDecoder{}, live.NewScrubber("plain"),
			func(c session.Chunk) bool { out = append(out, c); return true })
		Expect(out).NotTo(BeEmpty())
		last := out[len(out)-1]
		Expect(last.IsFinish()).To(BeTrue())
		Expect(last.Reason.Kind).To(Equal(session.FinishError))
		Expect(last.Reason.Failure.Code).To(Equal(live.CodeBadStream))
	})
})

// streamAll streams one call of model "m" with d and returns its chunks.
func streamAll(d *live.Driver) []session.Chunk {
	GinkgoHelper()
	s, err := d.Stream(context.Background(), &llm.Request{Model: "m"})
	Expect(err).NotTo(HaveOccurred())
	var out []session.Chunk
	for c := range s {
		out = append(out, c)
	}
	return out
}
