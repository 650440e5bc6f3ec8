package sdkagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// sentRequest is what the agent sent in one model call.
type sentRequest struct {
	Stream      *bool    `json:"stream"`
	Temperature *float64 `json:"temperature"`
	Tools       []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
}

func (r sentRequest) toolNames() []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// endpoint is a Chat Completions endpoint that answers each call with
// the next of its answers (a whole chat.completion, or a stream when the
// agent asks for one) and keeps what each call sent.
type endpoint struct {
	mu      sync.Mutex
	answers []liveAnswer
	sent    []sentRequest
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req sentRequest
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.sent = append(e.sent, req)
	if len(e.answers) == 0 {
		e.mu.Unlock()
		http.Error(w, `{"error":{"message":"no answer left"}}`, http.StatusBadRequest)
		return
	}
	a := e.answers[0]
	e.answers = e.answers[1:]
	e.mu.Unlock()
	if req.Stream != nil && *req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		streamAnswer(func(frame string) { fmt.Fprintf(w, "data: %s\n\n", frame) }, a)
		return
	}
	msg := map[string]any{"role": "assistant", "content": a.text}
	finish := "stop"
	if len(a.calls) > 0 {
		var calls []map[string]any
		for _, c := range a.calls {
			calls = append(calls, map[string]any{"id": c.id, "type": "function", "function": map[string]string{"name": c.name, "arguments": c.args}})
		}
		msg["tool_calls"], finish = calls, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}}})
}

func (e *endpoint) requests() []sentRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent
}

// newAgent is the agent on a client for srv.
func newAgent(srv *httptest.Server) *sdkagent.Agent {
	return &sdkagent.Agent{
		Client: openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithHTTPClient(srv.Client()), option.WithAPIKey("unused"), option.WithMaxRetries(0)),
		Model:  "m", System: "You are a help desk.",
	}
}

// tickets is a tool of the caller's: the state of a ticket by id.
var tickets = sdkagent.Tool{
	Name:        "ticket",
	Description: "The state of a support ticket.",
	Parameters:  map[string]any{"type": "object", "properties": map[string]any{"id": map[string]string{"type": "string"}}, "required": []string{"id"}},
	Run: func(_ context.Context, args string) (string, error) {
		var in struct{ ID string }
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return "", err
		}
		if in.ID != "T-1" {
			return "", errors.New("no ticket " + in.ID)
		}
		return "open", nil
	},
}

var _ = Describe("the agent's settings", func() {
	It("sends the temperature set, asks for whole answers, offers the caller's tools and runs them, errors included", func() {
		e := &endpoint{answers: []liveAnswer{
			{calls: []liveCall{{"call_1", "ticket", `{"id":"T-1"}`}, {"call_2", "ticket", `{"id":"T-9"}`}, {"call_3", "refund", `{}`}}},
			{text: "T-1 is open."},
		}}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		a := newAgent(srv)
		a.Temperature, a.WholeAnswers, a.Tools = openai.Float(0.2), true, []sdkagent.Tool{tickets}

		Expect(a.NewSession().Send(context.Background(), "How is T-1?")).To(Equal("T-1 is open."))
		sent := e.requests()
		Expect(sent).To(HaveLen(2))
		for _, r := range sent {
			Expect(r.Stream).To(BeNil(), "a whole answer is asked for")
			Expect(r.Temperature).To(HaveValue(Equal(0.2)))
			Expect(r.toolNames()).To(Equal([]string{"weather", "calculator", "ticket", "subagent_spawn", "subagent_fork"}))
		}
		results := map[string]any{}
		for _, m := range sent[1].Messages {
			if m.Role == "tool" {
				results[m.ToolCallID] = m.Content
			}
		}
		Expect(results).To(Equal(map[string]any{
			"call_1": "open",
			"call_2": "error: no ticket T-9",
			"call_3": `error: unknown tool "refund" (tools: weather, calculator, ticket; delegation only above the depth limit)`,
		}))
	})

	It("streams and leaves the temperature to the model when they are not set", func() {
		e := &endpoint{answers: []liveAnswer{{text: "Hello."}}}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		Expect(newAgent(srv).NewSession().Send(context.Background(), "Hi.")).To(Equal("Hello."))
		sent := e.requests()
		Expect(sent).To(HaveLen(1))
		Expect(sent[0].Stream).To(HaveValue(BeTrue()))
		Expect(sent[0].Temperature).To(BeNil())
	})

	DescribeTable("refuses, before any call, a tool the model could not tell apart",
		func(tools []sdkagent.Tool, want string) {
			e := &endpoint{}
			srv := httptest.NewServer(e)
			DeferCleanup(srv.Close)
			a := newAgent(srv)
			a.Tools = tools
			_, err := a.NewSession().Send(context.Background(), "Hi.")
			Expect(err).To(MatchError(want))
			Expect(e.requests()).To(BeEmpty())
		},
		Entry("named like a built-in tool", []sdkagent.Tool{tickets, {Name: "weather", Run: tickets.Run}},
			`sdkagent: Agent.Tools[1] is named "weather", like another tool; rename it (taken: weather, calculator, subagent_spawn, subagent_fork, ticket)`),
		Entry("named twice", []sdkagent.Tool{tickets, tickets},
			`sdkagent: Agent.Tools[1] is named "ticket", like another tool; rename it (taken: weather, calculator, subagent_spawn, subagent_fork, ticket)`),
		Entry("without a Run", []sdkagent.Tool{{Name: "ticket"}}, `sdkagent: Agent.Tools[0] ("ticket") needs a Name and a Run`),
	)
})
