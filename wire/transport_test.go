package wire_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

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
		// The driver holds the rest of the answer until the agent has read
		// the first frame and closed the body.
		release := make(chan struct{})
		held := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			return func(yield func(llm.Chunk) bool) {
				first := true
				for c := range say("hello " + req.Session.ID) {
					if !yield(c) {
						return
					}
					if c.Type == session.ChunkTextDelta && first {
						first = false
						<-release
					}
				}
			}, nil
		})
		store := memory.New()
		h, err := wire.NewHandler(wire.Config{Driver: held, Store: store})
		Expect(err).NotTo(HaveOccurred())
		client := &http.Client{Transport: wire.Transport(h)}
		resp, err := client.Post(wire.BaseURL+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		first := make([]byte, 4096)
		n, err := resp.Body.Read(first) // all that is written: the first frame
		Expect(err).NotTo(HaveOccurred())
		Expect(string(first[:n])).To(ContainSubstring(`"content":"hello"`))
		Expect(string(first[:n])).NotTo(ContainSubstring("root"), "the rest of the answer is not written yet")
		Expect(resp.Body.Close()).To(Succeed())
		close(release)

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

	It("hands a read all that is written and not yet read, in one piece", func() {
		written, release := make(chan struct{}), make(chan struct{})
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			for _, f := range []string{"data: 1\n\n", "data: 2\n\n", "data: 3\n\n"} {
				_, _ = io.WriteString(w, f)
			}
			close(written)
			<-release
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		})
		resp, err := (&http.Client{Transport: wire.Transport(h)}).Get("http://agentsnap.invalid/")
		Expect(err).NotTo(HaveOccurred())
		<-written
		buf := make([]byte, 4096)
		n, err := resp.Body.Read(buf)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(buf[:n])).To(Equal("data: 1\n\ndata: 2\n\ndata: 3\n\n"), "three frames, one read")
		close(release)
		rest, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rest)).To(Equal("data: [DONE]\n\n"))
	})

	It("loses no byte at a read's boundary, read a byte at a time, nor when the handler writes far ahead of the reads", func() {
		r := rand.New(rand.NewPCG(22, 3))
		var want []byte
		var writes [][]byte
		for i := range 300 {
			size := r.IntN(300)
			if i%50 == 7 {
				size = 70 << 10 // more than the handler may write ahead
			}
			b := make([]byte, size)
			for k := range b {
				b[k] = byte(r.IntN(256))
			}
			writes, want = append(writes, b), append(want, b...)
		}
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			for _, b := range writes {
				n, err := w.Write(b)
				if err != nil || n != len(b) {
					panic(fmt.Sprintf("write: %d of %d: %v", n, len(b), err))
				}
			}
		})
		for _, size := range []int{1, 7, 4096, 200 << 10} {
			resp, err := (&http.Client{Transport: wire.Transport(h)}).Get("http://agentsnap.invalid/")
			Expect(err).NotTo(HaveOccurred())
			var got []byte
			buf := make([]byte, size)
			for {
				n, err := resp.Body.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(bytes.Equal(got, want)).To(BeTrue(), "reads of %d bytes: %d bytes read, %d written", size, len(got), len(want))
		}
	})

	It("loses no byte when the handler writes after a read that left part of the last write unread", func() {
		// Handler and reader take turns: a write, then a read of part of
		// what is unread (or more than there is), and so on.
		r := rand.New(rand.NewPCG(22, 5))
		turn := make(chan int)
		var want []byte
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK) // the response, before the first turn
			for size := range turn {
				b := bytes.Repeat([]byte{byte('a' + len(want)%26)}, size)
				want = append(want, b...)
				_, _ = w.Write(b)
				turn <- 0
			}
		})
		resp, err := (&http.Client{Transport: wire.Transport(h)}).Get("http://agentsnap.invalid/")
		Expect(err).NotTo(HaveOccurred())
		var got []byte
		unread := 0
		for range 400 {
			size := 1 + r.IntN(5)
			turn <- size
			<-turn
			unread += size
			buf := make([]byte, 1+r.IntN(unread+1))
			n, err := resp.Body.Read(buf)
			Expect(err).NotTo(HaveOccurred())
			got, unread = append(got, buf[:n]...), unread-n
		}
		close(turn)
		rest, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(append(got, rest...))).To(Equal(string(want)))
	})

	It("hands each body's buffer on only once it is read to its end or closed: bodies served at once each read their own bytes", func() {
		// pattern is request n's answer: n's bytes, long enough for some
		// answers to grow their buffer.
		pattern := func(n int) []byte {
			return bytes.Repeat([]byte(fmt.Sprintf("<%d>", n)), 1+n%7*300)
		}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var n int
			_, _ = fmt.Sscan(r.URL.Query().Get("n"), &n)
			p := pattern(n)
			for len(p) > 0 { // in writes of a frame or so
				k := min(len(p), 300)
				_, _ = w.Write(p[:k])
				p = p[k:]
			}
		})
		client := &http.Client{Transport: wire.Transport(h)}
		var wg sync.WaitGroup
		errs := make(chan error, 8*40)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 40 {
					n := g*40 + i
					resp, err := client.Get(fmt.Sprintf("http://agentsnap.invalid/?n=%d", n))
					if err != nil {
						errs <- err
						continue
					}
					if n%5 == 0 { // some agents stop reading early
						_, _ = resp.Body.Read(make([]byte, 16))
						resp.Body.Close()
						continue
					}
					b, err := io.ReadAll(resp.Body)
					if err == nil && !bytes.Equal(b, pattern(n)) {
						err = fmt.Errorf("request %d read %d bytes not its own", n, len(b))
					}
					if _, again := resp.Body.Read(make([]byte, 8)); err == nil && again != io.EOF {
						err = fmt.Errorf("request %d: a read after the end: %v, want io.EOF", n, again)
					}
					resp.Body.Close()
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		var all []error
		for err := range errs {
			all = append(all, err)
		}
		Expect(all).To(BeEmpty())
	})

	It("fails the handler's writes once the agent closed the body", func() {
		closed, wrote := make(chan struct{}), make(chan error)
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "data: 1\n\n")
			<-closed
			_, err := io.WriteString(w, "data: 2\n\n")
			wrote <- err
		})
		resp, err := (&http.Client{Transport: wire.Transport(h)}).Get("http://agentsnap.invalid/")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		close(closed)
		Expect(<-wrote).To(MatchError(io.ErrClosedPipe))
		_, err = resp.Body.Read(make([]byte, 8))
		Expect(err).To(MatchError(io.ErrClosedPipe))
	})
})

var _ = Describe("the in-process transport's server goroutines", func() {
	// get makes a request through rt and reads its answer whole; a request
	// no server takes fails after ten seconds.
	get := func(rt http.RoundTripper) string {
		GinkgoHelper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://agentsnap.invalid/", nil)
		Expect(err).NotTo(HaveOccurred())
		resp, err := (&http.Client{Transport: rt}).Do(req)
		Expect(err).NotTo(HaveOccurred())
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Body.Close()).To(Succeed())
		return string(b)
	}
	servers := func(rt http.RoundTripper) func() []int {
		return func() []int {
			started, running, idle := wire.TransportServers(rt)
			return []int{started, running, idle}
		}
	}
	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") })

	It("serve one request after another on the same goroutine, as a client keeps its connection", func() {
		rt := wire.Transport(hello)
		wire.SetIdleTimeout(rt, time.Hour) // only closing ends them
		for range 20 {
			Expect(get(rt)).To(Equal("hello"))
			// The server goes back to wait once the handler has returned,
			// just after the agent read the end of the answer.
			Eventually(servers(rt)).Should(Equal([]int{1, 1, 1}))
		}
		(&http.Client{Transport: rt}).CloseIdleConnections()
		Eventually(servers(rt)).Should(Equal([]int{1, 0, 0}), "closing the idle connections ends the waiting server")
		Expect(get(rt)).To(Equal("hello"), "a request after that starts a server again")
		Eventually(servers(rt)).Should(Equal([]int{2, 1, 1}))
	})

	It("start a server for each request made while the others serve, and keep at most 64 waiting", func() {
		release := make(chan struct{})
		var started sync.WaitGroup
		held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			started.Done()
			<-release
			_, _ = io.WriteString(w, r.URL.Path)
		})
		rt := wire.Transport(held)
		wire.SetIdleTimeout(rt, time.Hour)
		const n = 70
		started.Add(n)
		answers := make(chan string, n)
		for i := range n {
			go func() {
				defer GinkgoRecover()
				resp, err := (&http.Client{Transport: rt}).Get(fmt.Sprintf("http://agentsnap.invalid/%d", i))
				Expect(err).NotTo(HaveOccurred())
				b, err := io.ReadAll(resp.Body)
				Expect(err).NotTo(HaveOccurred())
				answers <- string(b)
			}()
		}
		started.Wait() // every handler runs: one goroutine each
		Expect(servers(rt)()).To(Equal([]int{n, n, 0}))
		close(release)
		got := map[string]bool{}
		for range n {
			got[<-answers] = true
		}
		Expect(got).To(HaveLen(n), "every request got its own answer")
		Eventually(servers(rt)).Should(Equal([]int{n, 64, 64}))
		(&http.Client{Transport: rt}).CloseIdleConnections()
		Eventually(servers(rt)).Should(Equal([]int{n, 0, 0}))
	})

	It("end a server idle for the idle timeout, and lose no request made as it times out", func(SpecContext) {
		rt := wire.Transport(hello)
		wire.SetIdleTimeout(rt, time.Microsecond)
		Expect(get(rt)).To(Equal("hello"))
		Eventually(servers(rt)).Should(Equal([]int{1, 0, 0}))
		// Requests racing the timeout: each is answered, whichever server
		// takes it.
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				defer GinkgoRecover()
				for range 500 {
					Expect(get(rt)).To(Equal("hello"))
				}
			})
		}
		wg.Wait()
		Eventually(servers(rt)).Should(HaveExactElements(BeNumerically(">", 1), 0, 0))
	}, SpecTimeout(time.Minute))
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
