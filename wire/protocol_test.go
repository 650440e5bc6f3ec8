package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// say answers with text, in a message streamed word by word.
func say(text string) iter.Seq[llm.Chunk] {
	return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, nil, ""))
}

// sayDriver answers every call with text, naming the session that asked.
var sayDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	return say("hello " + req.Session.ID), nil
})

// lookupDriver answers a user message with one tool call, call_1, and
// anything else with text.
var lookupDriver = llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if req.Messages[len(req.Messages)-1].Role != session.RoleUser {
		return say("done"), nil
	}
	call := session.Part{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`}
	return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{call}}, nil, session.FinishToolCalls)), nil
})

// serveWire serves a new handler on drv over a test server and returns
// the handler, its store and the server's URL.
func serveWire(drv llm.Driver) (*wire.Handler, persistence.Store, string) {
	store := memory.New()
	h, err := wire.NewHandler(wire.Config{Driver: drv, Store: store})
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(h)
	DeferCleanup(srv.Close)
	return h, store, srv.URL
}

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

// chat is a chat completions request body with messages, each a JSON
// message object.
func chat(messages ...string) string {
	return `{"model":"m","messages":[` + strings.Join(messages, ",") + `]}`
}

// expectRefused expects a 400 answer whose error message, and then what
// Close returns, contain want.
func expectRefused(h *wire.Handler, code int, body, want string) {
	GinkgoHelper()
	Expect(code).To(Equal(http.StatusBadRequest), body)
	var answer struct{ Error struct{ Message string } }
	Expect(json.Unmarshal([]byte(body), &answer)).To(Succeed())
	Expect(answer.Error.Message).To(ContainSubstring(want))
	Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
}

var _ = Describe("a fork child's first request", func() {
	const hi, hello = `{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello root"}`
	fork := map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "call_f", wire.HeaderMode: "fork"}

	// The root "main" completes one turn (hi, hello root): what a fork
	// child inherits.
	DescribeTable("must send its parent's completed turns unchanged, then its prompt; Close reports a mismatch",
		func(messages []string, want string) {
			h, _, url := serveWire(sayDriver)
			code, body := post(url, chat(hi), map[string]string{wire.HeaderSession: "main"})
			Expect(code).To(Equal(200), body)
			code, body = post(url, chat(messages...), fork)
			if want == "" {
				Expect(code).To(Equal(200), body)
				Expect(body).To(ContainSubstring("hello root/call_f"))
				Expect(h.Close(context.Background())).To(Succeed())
				return
			}
			expectRefused(h, code, body, want)
		},
		Entry("as it should", []string{hi, hello, `{"role":"user","content":"q"}`}, ""),
		Entry("only its prompt", []string{`{"role":"user","content":"q"}`},
			"wire: fork child root/call_f inherits 2 messages of root (its completed turns), but its first request sends 1 messages in all"),
		Entry("an inherited answer changed", []string{hi, `{"role":"assistant","content":"hello there"}`, `{"role":"user","content":"q"}`},
			`wire: fork child root/call_f inherits 2 messages of root, but its first request differs at message 2: assistant text "hello there", want "hello root"`),
		Entry("more than its prompt after them", []string{hi, hello, `{"role":"user","content":"q"}`, `{"role":"user","content":"r"}`},
			"it sends 4 — the 2 messages (user, user) after them are not part of what a fork child starts with"),
	)
})

var _ = Describe("the tool results a request brings", func() {
	const hi, called = `{"role":"user","content":"hi"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"release\"}"}}]}`

	// The first request gets call_1 back; the second goes on from there.
	DescribeTable("answer the calls of the last answer, one message per call; Close reports what does not",
		func(next, want string) {
			h, _, url := serveWire(lookupDriver)
			code, body := post(url, chat(hi), nil)
			Expect(code).To(Equal(200), body)
			Expect(body).To(ContainSubstring(`"id":"call_1"`))
			code, body = post(url, chat(hi, called, next), nil)
			if want == "" {
				Expect(code).To(Equal(200), body)
				Expect(body).To(ContainSubstring("done"))
				Expect(h.Close(context.Background())).To(Succeed())
				return
			}
			expectRefused(h, code, body, want)
		},
		Entry("its result", `{"role":"tool","tool_call_id":"call_1","content":"v2.4.1"}`, ""),
		Entry("a result for a call it did not make", `{"role":"tool","tool_call_id":"call_2","content":"v2.4.1"}`,
			`wire: session root sends a tool result for call "call_2", which the last answer did not make (its calls: call_1)`),
		Entry("a user message instead", `{"role":"user","content":"again"}`,
			"wire: session root goes on without the results of 1 tool calls of the last answer (call_1); send one tool message per call"),
	)
})

var _ = Describe("a failed model call", func() {
	DescribeTable("is answered as the provider would answer it, and its retry goes on with the same turn",
		func(stream bool, status int) {
			var calls atomic.Int32
			flaky := llm.DriverFunc(func(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
				if calls.Add(1) == 1 {
					return slices.Values([]llm.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")}), nil
				}
				return sayDriver.Stream(ctx, req)
			})
			h, store, url := serveWire(flaky)
			request := fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"user","content":"hi"}]}`, stream)
			code, body := post(url, request, nil)
			Expect(code).To(Equal(status), body)
			Expect(body).To(ContainSubstring(`"code":"RATE_LIMIT"`))
			code, body = post(url, request, nil)
			Expect(code).To(Equal(http.StatusOK), body)
			Expect(body).To(ContainSubstring(`"hello`))

			Expect(h.Close(context.Background())).To(Succeed())
			l, err := store.Load(context.Background(), "root")
			Expect(err).NotTo(HaveOccurred())
			text, err := transcript.Render([]*session.Log{l})
			Expect(err).NotTo(HaveOccurred())
			Expect(text).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    model call failed (attempt 1): RATE_LIMIT: slow down
    assistant: hello root
  ended completed
`))
		},
		Entry("streamed: an error event", true, http.StatusOK),
		Entry("whole: the provider's status", false, http.StatusTooManyRequests),
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
		h, store, url := serveWire(once)
		code, body := post(url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
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
