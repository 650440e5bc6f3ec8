package wire_test

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sayDriver answers every call with text, naming the session that asked.
var sayDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	chunks := llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hello " + req.Session.ID)}}, nil, "")
	return func(yield func(llm.Chunk) bool) {
		for _, c := range chunks {
			if !yield(c) {
				return
			}
		}
	}, nil
})

// post sends one chat completions request with headers to url.
func post(url, body string, headers map[string]string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var _ = Describe("session identity by headers (an agent in another process)", func() {
	var store persistence.Store
	var h *wire.Handler
	var srv *httptest.Server
	BeforeEach(func() {
		store = memory.New()
		var err error
		h, err = wire.NewHandler(wire.Config{Driver: sayDriver, Store: store})
		Expect(err).NotTo(HaveOccurred())
		srv = httptest.NewServer(h)
		DeferCleanup(srv.Close)
	})
	user := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

	It("routes a child named by headers to a session of its own, in lineage", func() {
		code, body := post(srv.URL, user, map[string]string{wire.HeaderSession: "main"})
		Expect(code).To(Equal(200), body)
		Expect(body).To(ContainSubstring("hello root"))
		code, body = post(srv.URL, user, map[string]string{wire.HeaderSession: "helper-7", wire.HeaderParent: "main", wire.HeaderCall: "call_9", wire.HeaderMode: "spawn"})
		Expect(code).To(Equal(200), body)
		Expect(body).To(ContainSubstring("hello root/call_9"), "the log is named by lineage, whatever id the agent chose")
		Expect(h.Close(context.Background())).To(Succeed())
		l, err := store.Load(context.Background(), "root/call_9")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header).To(HaveField("ParentCallID", "call_9"))
		Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
	})

	DescribeTable("refuses headers that do not name a session clearly, and Close reports it",
		func(headers map[string]string, want string) {
			if headers[wire.HeaderParent] == "main" {
				code, _ := post(srv.URL, user, map[string]string{wire.HeaderSession: "main"})
				Expect(code).To(Equal(200))
			}
			code, body := post(srv.URL, user, headers)
			Expect(code).To(Equal(http.StatusBadRequest))
			var answer struct{ Error struct{ Message string } }
			Expect(json.Unmarshal([]byte(body), &answer)).To(Succeed())
			Expect(answer.Error.Message).To(ContainSubstring(want))
			Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
		},
		Entry("a child without its session id", map[string]string{wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "fork"},
			"Agentsnap-Session is missing"),
		Entry("a child of a parent that never called", map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "ghost", wire.HeaderCall: "c", wire.HeaderMode: "spawn"},
			`child session "x" names parent "ghost", which has made no call`),
		Entry("a child without its creating call", map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderMode: "spawn"},
			`child session "x" of "main" has no Agentsnap-Call`),
		Entry("an unknown mode", map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "clone"},
			`Agentsnap-Mode is "clone"; want spawn or fork`),
	)
})

var _ = Describe("a stream the driver can give once (a live model's)", func() {
	It("is read once: the answer is served and every chunk recorded", func() {
		var served, readings atomic.Int32
		once := llm.DriverFunc(func(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			seq, _ := sayDriver.Stream(ctx, req)
			var used atomic.Bool
			return func(yield func(llm.Chunk) bool) {
				readings.Add(1)
				if used.Swap(true) {
					yield(session.ErrorFinish("CONSUMED", "this stream was already iterated"))
					return
				}
				served.Add(1)
				for c := range seq {
					if !yield(c) {
						return
					}
				}
			}, nil
		})
		store := memory.New()
		h, err := wire.NewHandler(wire.Config{Driver: once, Store: store})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(h)
		DeferCleanup(srv.Close)
		code, body := post(srv.URL, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
		Expect(code).To(Equal(200))
		Expect(body).To(ContainSubstring(`"content":"hello"`))
		Expect(body).To(HaveSuffix("data: [DONE]\n\n"))
		Expect(h.Close(context.Background())).To(Succeed())
		Expect(served.Load()).To(Equal(int32(1)))
		Expect(readings.Load()).To(Equal(int32(1)), "a live stream is read once: a second reading fails it")
		l, err := store.Load(context.Background(), "root")
		Expect(err).NotTo(HaveOccurred())
		var finishes []string
		for _, e := range l.Events {
			if d, err := session.DecodeChunkData(e.Data); err == nil && e.Type == session.TypeAssistantChunk && d.Chunk.IsFinish() {
				finishes = append(finishes, d.Chunk.Reason.Kind)
			}
		}
		Expect(finishes).To(Equal([]string{session.FinishStop}), "one finish, the model's, not a second reading's error")
	})
})
