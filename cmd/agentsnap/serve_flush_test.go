package main

import (
	"bufio"
	"context"
	"io"
	"iter"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// gatedDriver streams "alpha bravo": every chunk up to alpha's delta at
// once, the rest only after release is closed.
type gatedDriver struct{ release chan struct{} }

func (d gatedDriver) Stream(ctx context.Context, _ *llm.Request) (iter.Seq[llm.Chunk], error) {
	msg := session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("alpha bravo")}}
	chunks := llm.StreamMessage(msg, nil, "")
	return func(yield func(llm.Chunk) bool) {
		for _, c := range chunks {
			if c.Type == session.ChunkTextDelta && !strings.Contains(c.Text, "alpha") {
				select {
				case <-d.release:
				case <-ctx.Done():
					return
				}
			}
			if !yield(c) {
				return
			}
		}
	}, nil
}

var _ = Describe("serve writing a stream", func() {
	It("sends each frame as soon as it is ready, not with the next", func(sctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		stop := make(chan struct{})
		rt := &serveRuntime{name: "external", ln: ln, stdout: io.Discard, stop: stop}
		d := gatedDriver{release: make(chan struct{})}
		ran := make(chan error, 1)
		go func() {
			ran <- rt.Run(context.Background(), &agentsnap.Env{Driver: d, Store: memory.New(), Provider: "test",
				Clock: func() time.Time { return agentsnap.Epoch }, Logf: func(string, ...any) {}})
		}()
		DeferCleanup(func() {
			close(stop)
			Eventually(ran).WithTimeout(10 * time.Second).Should(Receive(BeNil()))
		})

		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		req, err := http.NewRequestWithContext(sctx, http.MethodPost, "http://"+ln.Addr().String()+"/v1/chat/completions", strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		// The frame of alpha arrives while the model holds bravo back: a
		// writer that waited for bravo's frame would send nothing, not
		// even the headers, until serve stops.
		frames := make(chan string, 16)
		go func() {
			defer close(frames)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadString('\n')
				if strings.HasPrefix(line, "data: ") {
					frames <- line
				}
				if err != nil {
					return
				}
			}
		}()
		waitFor := func(word string) {
			GinkgoHelper()
			ctx, cancel := context.WithTimeout(sctx, 5*time.Second)
			defer cancel()
			for {
				select {
				case f, ok := <-frames:
					Expect(ok).To(BeTrue(), "the stream ended before a frame with %q", word)
					Expect(f).NotTo(ContainSubstring("bravo"), "bravo came before the model released it")
					if strings.Contains(f, word) {
						return
					}
				case <-ctx.Done():
					Fail("no frame with " + word + " within 5 s: serve held a ready frame back")
				}
			}
		}
		waitFor("alpha")
		close(d.release)
		var rest []string
		for f := range frames {
			rest = append(rest, f)
		}
		Expect(strings.Join(rest, "")).To(And(ContainSubstring("bravo"), ContainSubstring("[DONE]")))
	}, SpecTimeout(20*time.Second))
})

var _ = Describe("serve reading a stream ahead", func() {
	It("holds at most about 32 KiB of a client that does not read", func() {
		var made atomic.Int64
		big := strings.Repeat("la", 8<<10) // 16 KiB
		endless := func(yield func(llm.Chunk) bool) {
			for yield(llm.Chunk{Type: session.ChunkTextDelta, Text: big}) {
				made.Add(1)
			}
		}
		a := &readAhead{ch: make(chan llm.Chunk, readyChunks), room: make(chan struct{}, 1), done: make(chan struct{})}
		go a.fill(endless)
		// Nobody takes a chunk: the reading stops once the bound is met.
		last := int64(-1)
		Eventually(func() bool {
			n := made.Load()
			stalled := n > 0 && n == last
			last = n
			return stalled
		}).WithPolling(25 * time.Millisecond).WithTimeout(10 * time.Second).Should(BeTrue())
		Expect(made.Load()).To(BeNumerically("<=", readyBytes/len(big)+1))
		// Taking one makes room for one more.
		a.took(<-a.ch)
		Eventually(made.Load).WithTimeout(10 * time.Second).Should(Equal(last + 1))
		close(a.done)
		for range a.ch {
		}
	})
})
