package wire_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/internal/wirebench"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A replay whose calls never wait (fakellm.Driver.NeverWaits) is served on
// the agent's own goroutine: the answer comes whole, with no hand-over to
// a server goroutine and back. A call that may wait is still handed to one,
// so the agent reads its first frames while it waits.
var _ = Describe("the in-process transport with a replay", func() {
	var rec *wirebench.Recording
	BeforeEach(func() { rec = wirebench.Record(GinkgoT(), 1) })

	// replay serves rec's recorded requests with a driver made with opts.
	replay := func(opts ...fakellm.Option) (http.RoundTripper, *fakellm.Driver, *wire.Handler) {
		scripts, err := fakellm.Prepare(rec.Logs)
		Expect(err).NotTo(HaveOccurred())
		drv, err := scripts.Driver(opts...)
		Expect(err).NotTo(HaveOccurred())
		h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New()})
		Expect(err).NotTo(HaveOccurred())
		return wire.Transport(h), drv, h
	}
	// request is recorded call i, sent with ctx.
	request := func(ctx context.Context, i int) *http.Request {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(rec.Calls[i].Key)))
		Expect(err).NotTo(HaveOccurred())
		body, err := io.ReadAll(req.Body)
		Expect(err).NotTo(HaveOccurred())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.RequestURI, req.URL.Scheme, req.URL.Host = "", "http", req.Host
		return req.WithContext(ctx)
	}

	It("serves a replay that never waits on the agent's goroutine, every call whole", func(ctx SpecContext) {
		rt, drv, h := replay()
		Expect(drv.NeverWaits()).To(BeTrue())
		client := &http.Client{Transport: rt}
		for i := range rec.Calls {
			resp, err := client.Do(request(ctx, i))
			Expect(err).NotTo(HaveOccurred())
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(b))
			Expect(string(b)).To(Equal(string(rec.Calls[i].Body)), "call %d: the recorded answer", i+1)
		}
		Expect(h.Close(ctx)).To(Succeed())
		Expect(drv.Check()).To(Succeed())
		started, _, _ := wire.TransportServers(rt)
		Expect(started).To(BeZero(), "no server goroutine")
	}, SpecTimeout(time.Minute))

	It("sends no request whose context has ended, on either path, and closes its body", func(ctx SpecContext) {
		served := 0
		counting := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ })
		atOnce, _, _ := replay()
		for _, rt := range []http.RoundTripper{wire.Transport(counting), atOnce} {
			ended, cancel := context.WithCancel(ctx)
			cancel()
			req := request(ended, 0)
			body := &closeCounter{Reader: req.Body}
			req.Body = body
			_, err := rt.RoundTrip(req)
			Expect(err).To(MatchError(context.Canceled))
			Expect(body.closed).To(Equal(1), "the request's body is closed")
		}
		Expect(served).To(BeZero(), "no handler saw the request")
	}, SpecTimeout(time.Minute))

	It("hands a call that may wait to a server goroutine: the agent has its answer's start while it waits", func(ctx SpecContext) {
		rt, drv, _ := replay(fakellm.WithPace(time.Hour)) // every chunk after the first waits an hour
		Expect(drv.NeverWaits()).To(BeFalse())
		call, cancel := context.WithCancel(ctx)
		resp, err := (&http.Client{Transport: rt}).Do(request(call, 0))
		Expect(err).NotTo(HaveOccurred(), "the status and headers come while the call waits")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"))
		cancel() // the agent gives up on the call, which then ends
		_, err = io.ReadAll(resp.Body)
		Expect(err).To(MatchError(context.Canceled))
		started, _, _ := wire.TransportServers(rt)
		Expect(started).To(Equal(1))
	}, SpecTimeout(time.Minute))
})

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }
