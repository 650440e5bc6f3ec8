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

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	sdkoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// claudeOn returns the Anthropic SDK agent served in process by a new
// handler on drv, the handler and its store; opts add to the client's.
func claudeOn(drv llm.Driver, change func(*claudeAgent), opts ...sdkoption.RequestOption) (*claudeSession, *wire.Handler, persistence.Store) {
	store := memory.New()
	h, err := wire.NewHandler(wire.Config{Driver: drv, Store: store})
	Expect(err).NotTo(HaveOccurred())
	opts = append([]sdkoption.RequestOption{sdkoption.WithBaseURL("http://agentsnap.invalid"),
		sdkoption.WithHTTPClient(&http.Client{Transport: wire.Transport(h)})}, opts...)
	a := newClaudeAgent(json.RawMessage(`{"system":"You are terse."}`), opts...)
	change(a)
	return &claudeSession{agent: a}, h, store
}

// capturing answers each call with the next of its answers, keeping every
// request it is given.
type capturing struct {
	mu       sync.Mutex
	answers  [][]llm.Chunk
	requests []*llm.Request
}

func (d *capturing) Stream(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.requests = append(d.requests, req)
	if len(d.answers) == 0 {
		return say("done"), nil
	}
	a := d.answers[0]
	d.answers = d.answers[1:]
	return slices.Values(a), nil
}

// streamed is the chunks a live model streams for msg: each block-end
// carries its part's meta, as the live decoder gives it.
func streamed(msg session.Message, finish string) []llm.Chunk {
	chunks := llm.StreamMessage(msg, &session.Usage{InputTokens: 10, OutputTokens: 5}, finish)
	for i, c := range chunks {
		if c.Type == session.ChunkBlockEnd {
			blk := *c.Block
			blk.Meta = msg.Content[c.Index].Meta
			chunks[i].Block = &blk
		}
	}
	return chunks
}

var signed = session.Message{Role: session.RoleAssistant, Content: []session.Part{
	{Type: session.PartReasoning, Text: "I should look it up.", Meta: anthropic.Meta{Signature: "EqQBCgIYAhIMsig"}.JSON()},
	{Type: session.PartReasoning, Meta: anthropic.Meta{Data: "EmwKAhgBEgyredacted"}.JSON()},
	{Type: session.PartToolCall, ID: "toolu_1", Name: "lookup", Arguments: `{"key":"release"}`},
}}

// messagesPost sends one Messages request to url.
func messagesPost(url, body string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("x-api-key", "sk-ant-agent-0123456789")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var _ = Describe("the Messages format's tool results", func() {
	It("records each tool_result of one user message as its result, in call order, is_error kept; a text after them is the request as sent, not a new turn", func() {
		drv := script(map[string][]any{"root": {[]session.Part{toolCall("toolu_a", "lookup", `{"key":"a"}`), toolCall("toolu_b", "lookup", `{"key":"b"}`)}, "A, and no B."}})
		h, store, url := serveWire(drv)
		code, answer := messagesPost(url, `{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"a and b?"}]}`)
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(answer).To(ContainSubstring(`"stop_reason":"tool_use"`))
		code, answer = messagesPost(url, `{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"a and b?"},`+
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"lookup","input":{"key":"a"}},{"type":"tool_use","id":"toolu_b","name":"lookup","input":{"key":"b"}}]},`+
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":"no fact b","is_error":true},`+
			`{"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"A"}]},{"type":"text","text":"Be brief."}]}]}`)
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: a and b?
  step 1
    call toolu_a lookup {"key":"a"}
    call toolu_b lookup {"key":"b"}
    result toolu_a: A
    result toolu_b (error): no fact b
  history replaced: the first 2 messages kept, then:
    result toolu_b (error): no fact b
    result toolu_a: A
    user: Be brief.
  step 2
    assistant: A, and no B.
  ended completed
`))
	})
})

var _ = Describe("what the Messages API hands out and wants back", func() {
	for _, whole := range []bool{false, true} {
		It("gives the agent a thinking block's signature and a redacted_thinking block's data, and takes them back into the next request", func(ctx SpecContext) {
			drv := &capturing{answers: [][]llm.Chunk{streamed(signed, "")}}
			s, h, store := claudeOn(drv, func(a *claudeAgent) { a.Whole = whole })
			Expect(s.send(ctx, "Which release?")).To(Equal("done"))
			Expect(h.Close(ctx)).To(Succeed())

			Expect(drv.requests).To(HaveLen(2))
			back := drv.requests[1].Messages[1]
			Expect(back.Role).To(Equal(session.RoleAssistant))
			Expect(back.Content[0].Text).To(Equal("I should look it up."))
			Expect(back.Content[0].Meta).To(MatchJSON(`{"anthropic-messages":{"signature":"EqQBCgIYAhIMsig"}}`))
			Expect(back.Content[1].Meta).To(MatchJSON(`{"anthropic-messages":{"data":"EmwKAhgBEgyredacted"}}`))
			msgs, err := anthropic.EncodeMessages(drv.requests[1].Messages)
			Expect(err).NotTo(HaveOccurred())
			b, err := json.Marshal(msgs)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(ContainSubstring(`{"type":"thinking","thinking":"I should look it up.","signature":"EqQBCgIYAhIMsig"},{"type":"redacted_thinking","data":"EmwKAhgBEgyredacted"}`),
				"a live model gets them as it handed them out")

			l, err := store.Load(ctx, "root")
			Expect(err).NotTo(HaveOccurred())
			var logged session.AssistantMessageData
			for _, e := range l.Events {
				if e.Type == session.TypeAssistantMessage {
					Expect(json.Unmarshal(e.Data, &logged)).To(Succeed())
					break
				}
			}
			Expect(logged.Message.Content[0].Meta).To(MatchJSON(back.Content[0].Meta), "the log keeps them on the assistant message")
		})
	}
})

var _ = Describe("the Messages format's errors", func() {
	It("answers a request it cannot serve with the API's error body, which the SDK reads", func(ctx SpecContext) {
		s, h, _ := claudeOn(sayDriver, func(*claudeAgent) {})
		_, err := s.send(wire.Spawn(ctx, "toolu_nope"), "hi")
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(string(apiErr.Type())).To(Equal("invalid_request_error"))
		Expect(apiErr.Message).To(ContainSubstring(`spawn child root/toolu_nope names call "toolu_nope", which its parent root never made`))
		Expect(h.Close(ctx)).To(MatchError(ContainSubstring("toolu_nope")))
	})

	It("serves a failed call as an error event in a stream and as an error status when whole", func(ctx SpecContext) {
		fail := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values([]llm.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")}), nil
		})
		for _, whole := range []bool{false, true} {
			s, h, _ := claudeOn(fail, func(a *claudeAgent) { a.Whole = whole })
			_, err := s.send(ctx, "hi")
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
			Expect(string(apiErr.Type())).To(Equal("rate_limit_error"))
			Expect(apiErr.Message).To(Equal("slow down"))
			if whole {
				Expect(apiErr.StatusCode).To(Equal(http.StatusTooManyRequests))
			}
			Expect(h.Close(ctx)).To(Succeed(), "a failed call is the recorded outcome")
		}
	})
})

var _ = Describe("the Messages format's requests", func() {
	It("takes the agent's key for a secret of the recording, sent as anthropic-sdk-go sends it (Authorization: Bearer) or in x-api-key", func(ctx SpecContext) {
		const other = "sk-ant-x-api-key-0123456789"
		set := secret.New()
		s, h, _ := claudeOn(sayDriver, func(*claudeAgent) {}, sdkoption.WithHeader("x-api-key", other))
		_, err := s.send(secret.NewContext(ctx, set), "hi")
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Close(ctx)).To(Succeed())
		Expect(set.Values()).To(HaveKeyWithValue("the bearer token in the Authorization header of the agent's request", claudeAgentKey))
		Expect(set.Values()).To(HaveKeyWithValue("the x-api-key header of the agent's request", other))
	})

	It("is served at /v1/messages under any prefix (also a base URL that ends in /v1), and count_tokens beside it is a token count, not a model call", func() {
		_, _, url := serveWire(sayDriver)
		code, answer := messagesPost(url+"/v1", `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`)
		Expect(code).To(Equal(http.StatusOK), answer)
		Expect(answer).To(ContainSubstring(`"text":"hello root"`))
		resp, err := http.Post(url+"/v1/v1/messages/count_tokens", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "a driver that is no live model counts nothing")
		Expect(string(b)).To(ContainSubstring("the model driver cannot count tokens"))
	})

	It("refuses a body that is not a Messages request, naming where, in the API's error shape", func() {
		h, _, url := serveWire(sayDriver)
		code, answer := messagesPost(url, `{"model":"m","messages":[{"role":"tool","content":"x"}]}`)
		Expect(code).To(Equal(http.StatusBadRequest))
		Expect(answer).To(MatchJSON(`{"type":"error","error":{"type":"invalid_request_error","message":"wire: POST /v1/messages: messages[0].role: \"tool\"; want user or assistant (the system prompt is the request's system member)"}}`))
		Expect(h.Close(context.Background())).To(MatchError(ContainSubstring("messages[0].role")))
	})
})
