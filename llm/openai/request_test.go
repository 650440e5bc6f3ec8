package openai_test

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// conversation has every part type: a user turn, an assistant message with
// reasoning, text and two tool calls, their results, and a tool.
func conversation() *llm.Request {
	return &llm.Request{
		Session: llm.SessionRef{ID: "root"},
		Turn:    1,
		Step:    2,
		System:  "You are terse.",
		Messages: []llm.Message{
			{Role: session.RoleUser, Content: []session.Part{session.TextPart("Weather and time in Paris?")}},
			{Role: session.RoleAssistant, Content: []session.Part{
				{Type: session.PartReasoning, Text: "Two lookups."},
				session.TextPart("Checking."),
				{Type: session.PartToolCall, ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{Type: session.PartToolCall, ID: "call_b", Name: "get_time", Arguments: ""},
			}},
			{Role: session.RoleTool, Content: []session.Part{
				{Type: session.PartToolResult, ToolCallID: "call_a", Name: "get_weather", Content: []session.Part{session.TextPart("18C, "), session.TextPart("cloudy")}},
			}},
			{Role: session.RoleTool, Content: []session.Part{
				{Type: session.PartToolResult, ToolCallID: "call_b", IsError: true, Content: []session.Part{session.TextPart("clock broken")}},
			}},
		},
		Tools: []llm.ToolSpec{
			{Name: "get_weather", Description: "Current weather.", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "get_time"},
		},
	}
}

const wantMessages = `[
	{"role":"system","content":"You are terse."},
	{"role":"user","content":"Weather and time in Paris?"},
	{"role":"assistant","content":"Checking.","tool_calls":[
		{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
		{"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},
	{"role":"tool","tool_call_id":"call_a","content":"18C, cloudy"},
	{"role":"tool","tool_call_id":"call_b","content":"clock broken"}]`

const wantTools = `[
	{"type":"function","function":{"name":"get_weather","description":"Current weather.",
		"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
	{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}]`

var _ = Describe("the request", func() {
	It("posts the mapped conversation, tools and stream options to {base}/chat/completions", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"ok"}`, `"stop"`)))
		collect(ctx, newDriver(p), conversation())
		Expect(p.Requests()).To(HaveLen(1))
		got := p.Requests()[0]
		Expect(got.Path).To(Equal("/v1/chat/completions"))
		Expect(got.Header.Get("Content-Type")).To(Equal("application/json"))
		Expect(got.Header.Get("Accept")).To(Equal("text/event-stream"))
		Expect(got.Body).To(MatchJSON(`{"model":"test-model","stream":true,"stream_options":{"include_usage":true},` +
			`"messages":` + wantMessages + `,"tools":` + wantTools + `}`))
	})

	It("sends reasoning back as reasoning_content when SendReasoning is set (DeepSeek)", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"ok"}`, `"stop"`)))
		collect(ctx, newDriver(p, func(c *openai.Config) { c.SendReasoning = true }), conversation())
		var body struct {
			Messages []map[string]any `json:"messages"`
		}
		Expect(json.Unmarshal(p.Requests()[0].Body, &body)).To(Succeed())
		Expect(body.Messages[2]).To(HaveKeyWithValue("reasoning_content", "Two lookups."))
		Expect(body.Messages[1]).NotTo(HaveKey("reasoning_content"))
	})

	It("sends null content for an assistant message that only calls tools, and drops an empty one", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"ok"}`, `"stop"`)))
		req := userRequest("go")
		req.Model = "override-model"
		req.Messages = append(req.Messages,
			llm.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartReasoning, Text: "thinking only"}}},
			llm.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: "c", Name: "f", Arguments: "{}"}}},
		)
		collect(ctx, newDriver(p), req)
		Expect(p.Requests()[0].Body).To(MatchJSON(`{"model":"override-model","stream":true,"stream_options":{"include_usage":true},"messages":[
			{"role":"user","content":"go"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`))
	})

	It("sends the key as a bearer token and extra headers as given; no key, no Authorization", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"ok"}`, `"stop"`)))
		collect(ctx, newDriver(p, func(c *openai.Config) { c.Header = http.Header{"X-Title": {"agentsnap"}} }), userRequest("x"))
		collect(ctx, newDriver(p, func(c *openai.Config) { c.APIKey = "" }), userRequest("x"))
		reqs := p.Requests()
		Expect(reqs[0].Header.Get("Authorization")).To(Equal("Bearer " + testKey))
		Expect(reqs[0].Header.Get("X-Title")).To(Equal("agentsnap"))
		Expect(reqs[1].Header.Values("Authorization")).To(BeEmpty())
	})

	It("refuses to start without a model, naming the session", func(ctx SpecContext) {
		d, err := openai.New(openai.Config{BaseURL: "http://localhost:11434/v1"})
		Expect(err).NotTo(HaveOccurred())
		_, err = d.Stream(ctx, userRequest("x"))
		Expect(err).To(MatchError(openai.ErrNoModel))
		Expect(err.Error()).To(ContainSubstring(`session "root" turn 1 step 1`))
	})

	It("refuses to start when a tool's parameters are not JSON", func(ctx SpecContext) {
		d, err := openai.New(openai.Config{BaseURL: "http://localhost:11434/v1", Model: "m"})
		Expect(err).NotTo(HaveOccurred())
		req := userRequest("x")
		req.Tools = []llm.ToolSpec{{Name: "broken", Parameters: json.RawMessage(`{"type":`)}}
		_, err = d.Stream(ctx, req)
		Expect(err).To(MatchError(openai.ErrBadRequest))
		Expect(err.Error()).To(ContainSubstring(`tool "broken"`))
		_, err = d.Stream(ctx, nil)
		Expect(err).To(MatchError(openai.ErrBadRequest))
	})

	DescribeTable("New refuses a base URL that is not absolute http(s), without echoing it",
		func(base string) {
			_, err := openai.New(openai.Config{BaseURL: base, APIKey: testKey})
			Expect(err).To(MatchError(openai.ErrBaseURL))
			if base != "" {
				Expect(err.Error()).NotTo(ContainSubstring(base))
			}
		},
		Entry("empty", ""),
		Entry("relative", "relative/base"),
		Entry("another scheme", "ftp://example.com/v1"),
		Entry("no host", "https:///v1"),
		Entry("unparsable", "http://[::1/v1?token=abc"),
	)

	It("keeps the base URL's path and query when adding /chat/completions", func(ctx SpecContext) {
		p := newProvider(streaming(chunk(`{"content":"ok"}`, `"stop"`)))
		collect(ctx, newDriver(p, func(c *openai.Config) { c.BaseURL = p.URL + "/" }), userRequest("x"))
		Expect(p.Requests()[0].Path).To(Equal("/v1/chat/completions"))
	})

	It("reports its default model", func() {
		d, err := openai.New(openai.Config{BaseURL: "https://api.deepseek.com/v1", Model: "deepseek-chat"})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Model()).To(Equal("deepseek-chat"))
	})
})

var _ = Describe("KeyFromEnv", func() {
	DescribeTable("takes the first key set, in order",
		func(env map[string]string, key, name string) {
			k, n := openai.KeyFromEnv(func(v string) string { return env[v] })
			Expect(k).To(Equal(key))
			Expect(n).To(Equal(name))
		},
		Entry("none", map[string]string{}, "", ""),
		Entry("agentsnap's own first", map[string]string{"AGENTSNAP_API_KEY": "a", "OPENAI_API_KEY": "o", "DEEPSEEK_API_KEY": "d"}, "a", "AGENTSNAP_API_KEY"),
		Entry("then OpenAI's", map[string]string{"OPENAI_API_KEY": "o", "DEEPSEEK_API_KEY": "d"}, "o", "OPENAI_API_KEY"),
		Entry("then DeepSeek's", map[string]string{"DEEPSEEK_API_KEY": "d"}, "d", "DEEPSEEK_API_KEY"),
		Entry("blank values skipped, white space trimmed", map[string]string{"AGENTSNAP_API_KEY": "  ", "OPENAI_API_KEY": "o\n"}, "o", "OPENAI_API_KEY"),
	)
})

var _ = DescribeTable("Retryable",
	func(code string, want bool) { Expect(openai.Retryable(code)).To(Equal(want)) },
	Entry(nil, openai.CodeRateLimit, true),
	Entry(nil, openai.CodeServer, true),
	Entry(nil, openai.CodeTransport, true),
	Entry(nil, openai.CodeAuth, false),
	Entry(nil, openai.CodeBadRequest, false),
	Entry(nil, openai.CodeBadStream, false),
	Entry(nil, openai.CodeContentFilter, false),
	Entry(nil, openai.CodeProvider, false),
	Entry(nil, openai.CodeConsumed, false),
)
