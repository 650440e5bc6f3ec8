package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"
)

// blocks is the chunks a Gemini recording holds for parts: each block
// streamed, its meta (a thought signature) on its block-end.
func blocks(parts ...session.Part) []llm.Chunk {
	chunks := llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: parts}, nil, "")
	for i := range chunks {
		if c := &chunks[i]; c.Type == session.ChunkBlockEnd {
			c.Block.Meta = parts[c.Index].Meta
		}
	}
	return chunks
}

// keeper answers a session's calls in turn from a queue of chunk lists and
// keeps every request it is given.
type keeper struct {
	mu       sync.Mutex
	answers  [][]llm.Chunk
	requests []*llm.Request
}

func (k *keeper) Stream(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.requests = append(k.requests, req)
	if len(k.answers) == 0 {
		return nil, errors.New("keeper: no answer left")
	}
	a := k.answers[0]
	k.answers = k.answers[1:]
	return slices.Values(a), nil
}

func (k *keeper) Requests() []*llm.Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.requests)
}

// inProcess returns a genai agent whose calls the handler on drv serves
// in process, and the handler.
func inProcess(ctx context.Context, drv llm.Driver, change func(*genaiAgent)) (*genaiAgent, *wire.Handler) {
	GinkgoHelper()
	h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New()})
	Expect(err).NotTo(HaveOccurred())
	a, err := newGenaiAgent(ctx, json.RawMessage(`{"system":"You are terse."}`), &http.Client{Transport: wire.Transport(h)}, strings.TrimSuffix(wire.BaseURL, "/v1"), "")
	Expect(err).NotTo(HaveOccurred())
	change(a)
	return a, h
}

var _ = Describe("the Gemini format through the genai SDK", func() {
	signed := func() *keeper {
		return &keeper{answers: [][]llm.Chunk{
			blocks(
				session.Part{Type: session.PartReasoning, Text: "I should look it up.", Meta: gemini.Meta("c2lnLXJlYXNvbg==")},
				session.Part{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`, Meta: gemini.Meta("c2lnLWNhbGw=")},
			),
			blocks(session.Part{Type: session.PartText, Text: "It is v2.4.1.", Meta: gemini.Meta("c2lnLXRleHQ=")}),
		}}
	}

	DescribeTable("hands the agent each thought signature on its part, and reads it back from the next request",
		func(ctx SpecContext, change func(*genaiAgent)) {
			drv := signed()
			a, h := inProcess(ctx, drv, change)
			root, err := a.root(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(root.Send(ctx, "Which release?")).To(Equal("It is v2.4.1."))
			Expect(h.Close(ctx)).To(Succeed())
			reqs := drv.Requests()
			Expect(reqs).To(HaveLen(2))
			Expect(reqs[1].Messages).To(Equal([]session.Message{
				{Role: session.RoleUser, Content: []session.Part{session.TextPart("Which release?")}},
				{Role: session.RoleAssistant, Content: []session.Part{
					{Type: session.PartReasoning, Text: "I should look it up.", Meta: gemini.Meta("c2lnLXJlYXNvbg==")},
					{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release"}`, Meta: gemini.Meta("c2lnLWNhbGw=")},
				}},
				{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "call_1", Name: "lookup", Content: []session.Part{session.TextPart("v2.4.1")}}}},
			}))
			Expect(reqs[1].API).To(Equal(gemini.API))
		},
		Entry("streamed", func(*genaiAgent) {}),
		Entry("whole answers", func(a *genaiAgent) { a.Whole = true }),
		Entry("the SDK's Chats", func(a *genaiAgent) { a.Chat = true }),
	)

	It("gives the SDK an error in the API's shape when the call cannot start, with an integer code", func(ctx SpecContext) {
		a, h := inProcess(ctx, &keeper{}, func(*genaiAgent) {})
		root, err := a.root(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = root.Send(ctx, "Hi")
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.Code).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Status).To(Equal("INVALID_ARGUMENT"))
		Expect(apiErr.Message).To(ContainSubstring("wire: session root: the model call could not start: keeper: no answer left"))
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring("keeper: no answer left")))
	})

	DescribeTable("ends a call that failed after its start with the failure as the SDK's error, after what was streamed",
		func(ctx SpecContext, whole bool) {
			failed := append(blocks(session.TextPart("Partial"))[:3], session.ErrorFinish("RATE_LIMIT", "slow down"))
			a, h := inProcess(ctx, &keeper{answers: [][]llm.Chunk{failed}}, func(a *genaiAgent) { a.Whole = whole })
			root, err := a.root(ctx)
			Expect(err).NotTo(HaveOccurred())
			_, err = root.Send(ctx, "Hi")
			var apiErr genai.APIError
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
			Expect(apiErr).To(HaveField("Code", http.StatusTooManyRequests))
			Expect(apiErr).To(HaveField("Message", "slow down"))
			Expect(apiErr).To(HaveField("Status", "RESOURCE_EXHAUSTED"))
			Expect(h.Close(ctx)).To(Succeed(), "a failed call is the model's outcome, recorded")
		},
		Entry("streamed", false),
		Entry("whole", true),
	)
})

// postTo sends a JSON request body to path on the test server at url and
// returns the status and the body.
func postTo(url, path, body string) (int, string) {
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const streamPath = "/v1beta/models/m:streamGenerateContent?alt=sse"

var _ = Describe("the Gemini format on the wire", func() {
	DescribeTable("refuses what it cannot serve with the API's error body, an integer code, and says what to do",
		func(path, body, want string) {
			h, _, url := serveWire(sayDriver)
			code, answer := postTo(url, path, body)
			Expect(code).To(Equal(http.StatusBadRequest), answer)
			var e struct{ Error gemini.APIError }
			Expect(json.Unmarshal([]byte(answer), &e)).To(Succeed())
			Expect(e.Error.Code).To(Equal(400))
			Expect(e.Error.Status).To(Equal("INVALID_ARGUMENT"))
			Expect(e.Error.Message).To(ContainSubstring(want))
			Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
		},
		Entry("a stream in an encoding it does not serve", "/v1beta/models/m:streamGenerateContent?alt=proto", `{"contents":[]}`, "ask for server-sent events (alt=sse, as the official SDKs do) or JSON (alt=json)"),
		Entry("an image the model sent", streamPath, `{"contents":[{"role":"user","parts":[{"text":"Draw."}]},{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`, `contents[1].parts[0]: a "inlineData" part: agentsnap does not record it yet`),
	)

	It("pairs function responses that name no id with the calls of the answer before them, by name and in order", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("call_a", "lookup", `{"key":"a"}`), toolCall("call_b", "lookup", `{"key":"b"}`)}, "Both."}})
		h, store, url := serveWire(drv)
		first := `{"contents":[{"role":"user","parts":[{"text":"Look a and b up."}]}]}`
		code, answer := postTo(url, streamPath, first)
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(answer).To(ContainSubstring(`"functionCall":{"id":"call_a","name":"lookup","args":{"key":"a"}}`))
		code, answer = postTo(url, streamPath, `{"contents":[
			{"role":"user","parts":[{"text":"Look a and b up."}]},
			{"role":"model","parts":[{"functionCall":{"id":"call_a","name":"lookup","args":{"key":"a"}}},{"functionCall":{"id":"call_b","name":"lookup","args":{"key":"b"}}}]},
			{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"output":"A"}}},{"functionResponse":{"name":"lookup","response":{"error":"none"}}}]}
		]}`)
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(rendered(h, store, "root")).To(ContainSubstring(`    result call_a: A
    result call_b (error): none
  step 2
    assistant: Both.`))
	})
})
