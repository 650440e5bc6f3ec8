package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	rs "github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// postResp sends one Responses request to url.
func postResp(url, body string, headers map[string]string) (int, string) {
	req, err := http.NewRequest(http.MethodPost, url+"/v1/responses", strings.NewReader(body))
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

// okResp posts a request for a whole answer and returns the response.
func okResp(url, body string) rs.Response {
	GinkgoHelper()
	code, answer := postResp(url, body, nil)
	Expect(code).To(Equal(http.StatusOK), answer)
	var r rs.Response
	Expect(json.Unmarshal([]byte(answer), &r)).To(Succeed())
	return r
}

// respReq is a Responses request of model m with members, each "name": value.
func respReq(members ...string) string {
	return `{"model":"m",` + strings.Join(members, ",") + `}`
}

const lookupTool = `"tools":[{"type":"function","name":"lookup","description":"Look up.","parameters":{"type":"object"}}]`

// capture is a driver that keeps every request and answers with next.
type capture struct {
	mu   sync.Mutex
	reqs []llm.Request
	next llm.Driver
}

func (c *capture) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, *req)
	c.mu.Unlock()
	return c.next.Stream(ctx, req)
}

func (c *capture) last() llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reqs[len(c.reqs)-1]
}

// sseEvents reads an event stream: per event "event-line|type|sequence_number".
func sseEvents(body string) []string {
	var out []string
	for frame := range strings.SplitSeq(strings.TrimSpace(body), "\n\n") {
		name, data, _ := strings.Cut(frame, "\n")
		var ev struct {
			Type string `json:"type"`
			Seq  int    `json:"sequence_number"`
		}
		Expect(json.Unmarshal([]byte(strings.TrimPrefix(data, "data: ")), &ev)).To(Succeed(), frame)
		out = append(out, fmt.Sprintf("%s|%s|%d", strings.TrimPrefix(name, "event: "), ev.Type, ev.Seq))
	}
	return out
}

var _ = Describe("a Responses chain", func() {
	It("continues the conversation previous_response_id names, a function_call_output named after its call; instructions are the request's own", func() {
		drv := &capture{next: lookupDriver}
		h, store, url := serveWire(drv)
		r1 := okResp(url, respReq(`"instructions":"first"`, `"input":"hi"`, lookupTool))
		Expect(r1.ID).To(HavePrefix("resp_"))
		Expect(r1.Output).To(HaveLen(1))
		Expect(r1.Output[0].Type).To(Equal("function_call"))
		Expect(r1.Output[0].CallID).To(Equal("call_1"))
		Expect(r1.Output[0].ID).To(HavePrefix("fc_"))
		okResp(url, respReq(`"instructions":"second"`, `"previous_response_id":"`+r1.ID+`"`, lookupTool,
			`"input":[{"type":"function_call_output","call_id":"call_1","output":"v2.4.1"}]`))
		req := drv.last()
		Expect(req.System).To(Equal("second"))
		Expect(req.Messages).To(HaveLen(3))
		Expect(req.Messages[2].Content[0]).To(HaveField("Name", "lookup"))
		Expect(rendered(h, store, "root")).To(Equal(`== root ==
turn 1 (user)
  user: hi
  step 1
    call call_1 lookup {"key":"release"}
    result call_1: v2.4.1
  step 2
    called with another system prompt (6 characters)
    assistant: done
  ended completed
`))
	})

	It("hands out ids derived from the call: the same in another run, another for another call", func() {
		ids := func() []string {
			_, _, url := serveWire(sayDriver)
			r := okResp(url, respReq(`"input":"hi"`))
			return []string{r.ID, r.Output[0].ID}
		}
		first := ids()
		Expect(ids()).To(Equal(first))
		_, _, url := serveWire(sayDriver)
		okResp(url, respReq(`"input":"hi"`))
		r := okResp(url, respReq(`"input":"again"`))
		Expect([]string{r.ID, r.Output[0].ID}).NotTo(ContainElements(first[0], first[1]))
	})

	It("keeps the responses of each handler to itself: DefaultFormats gives every handler its own", func() {
		_, _, first := serveWire(sayDriver)
		r1 := okResp(first, respReq(`"input":"hi"`))
		h, _, other := serveWire(sayDriver)
		code, body := postResp(other, respReq(`"previous_response_id":"`+r1.ID+`"`, `"input":"again"`), nil)
		expectRefused(h, code, body, `previous_response_id "`+r1.ID+`" names no response served in this run (none was served yet)`)
	})

	It("resolves item_reference items against the items served (the Vercel AI SDK's shape with store)", func() {
		h, store, url := serveWire(sayDriver)
		r1 := okResp(url, respReq(`"input":"hi"`))
		okResp(url, respReq(`"input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"`+r1.Output[0].ID+`"},{"role":"user","content":[{"type":"input_text","text":"again"}]}]`))
		Expect(rendered(h, store, "root")).To(HaveSuffix(`turn 2 (user)
  user: again
  step 1
    assistant: hello root
  ended completed
`))
	})

	It("refuses a chain through a response served with store false, as the API keeps none", func() {
		h, _, url := serveWire(sayDriver)
		r1 := okResp(url, respReq(`"input":"hi"`, `"store":false`))
		code, body := postResp(url, respReq(`"previous_response_id":"`+r1.ID+`"`, `"input":"again"`), nil)
		expectRefused(h, code, body, `previous_response_id "`+r1.ID+`" names a response served with store: false, which the Responses API does not keep; send store: true with the request that makes it, or send the whole conversation as input`)
	})

	DescribeTable("refuses what it cannot resolve or serve, naming it and what to send",
		func(body, want string) {
			h, _, url := serveWire(sayDriver)
			code, answer := postResp(url, body, nil)
			expectRefused(h, code, answer, want)
		},
		Entry("an unknown previous_response_id", respReq(`"previous_response_id":"resp_nope"`, `"input":"hi"`),
			`wire: POST /v1/responses: previous_response_id "resp_nope" names no response served in this run (none was served yet); send the id of a response the agent was handed in this run, or send the whole conversation as input`),
		Entry("an unknown item_reference", respReq(`"input":[{"type":"item_reference","id":"msg_nope"}]`),
			`input[0]: item_reference "msg_nope" names no output item of a response served in this run (none was served yet); send the item itself`),
		Entry("a built-in tool's item", respReq(`"input":[{"role":"user","content":"hi"},{"type":"web_search_call","id":"ws_1"}]`),
			`input[1]: items of type "web_search_call" are not served; agentsnap serves messages, function_call, function_call_output, reasoning and item_reference items (function tools only)`),
		Entry("a function call without its call id", respReq(`"input":[{"type":"function_call","name":"f","arguments":"{}"}]`),
			`input[0]: a function_call needs its call_id`),
		Entry("a message without its role", respReq(`"input":[{"content":"hi"}]`),
			`input[0]: a message needs its role (user, assistant, system or developer), and another item its type`),
		Entry("input that is no list", respReq(`"input":5`), `input: want a string or an array of items`),
		Entry("a stored conversation", respReq(`"conversation":"conv_1"`, `"input":"hi"`),
			`conversation: agentsnap keeps no conversations (the Conversations API); continue a conversation with previous_response_id, or send it whole as input`),
		Entry("a function tool without a name", respReq(`"input":"hi"`, `"tools":[{"type":"function","parameters":{}}]`),
			`tools[0]: a function tool needs its name, a string`),
	)

	It("answers a path no API is on with a 404 naming the APIs served", func() {
		h, _, url := serveWire(sayDriver)
		resp, err := http.Post(url+"/v1/responses/compact", "application/json", strings.NewReader(respReq(`"input":"hi"`)))
		Expect(err).NotTo(HaveOccurred())
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
		want := "wire: POST /v1/responses/compact is not a model call agentsnap serves (it serves OpenAI Chat Completions (POST /v1/chat/completions), OpenAI Responses (POST /v1/responses), "
		Expect(string(b)).To(ContainSubstring(want))
		Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(want)))
	})
})

var _ = Describe("what a Responses request says", func() {
	It("makes the system prompt of instructions and the input's system and developer messages", func() {
		drv := &capture{next: sayDriver}
		_, _, url := serveWire(drv)
		okResp(url, respReq(`"instructions":"Be brief."`, `"input":[{"role":"developer","content":"Use metric units."},{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]`))
		req := drv.last()
		Expect(req.System).To(Equal("Be brief.\n\nUse metric units."))
		Expect(req.Messages).To(Equal([]session.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("hi")}}}))
	})

	DescribeTable("keeps every member but the transport as its settings, the tools too when they say more than a name, a description and parameters",
		func(members, want string) {
			drv := &capture{next: sayDriver}
			_, _, url := serveWire(drv)
			okResp(url, respReq(`"input":"hi"`, members))
			Expect(string(drv.last().Settings)).To(Equal(want))
			Expect(drv.last().API).To(Equal("openai-responses"))
		},
		Entry("sampling and limits; store, stream and the chain are transport",
			`"temperature":0.2,"max_output_tokens":50,"store":true,"stream":false,"stream_options":{"include_obfuscation":false},"truncation":"auto",`+lookupTool,
			`{"max_output_tokens":50,"temperature":0.2,"truncation":"auto"}`),
		Entry("a strict function tool", `"tools":[{"type":"function","name":"lookup","parameters":{"type":"object"},"strict":true}]`,
			`{"tools":[{"name":"lookup","parameters":{"type":"object"},"strict":true,"type":"function"}]}`),
		Entry("a built-in tool", `"tools":[{"type":"web_search"}]`, `{"tools":[{"type":"web_search"}]}`),
	)
})

var _ = Describe("a Responses answer", func() {
	reasoned := session.Message{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartReasoning, Text: "Check it."},
		session.TextPart("Looking."),
		toolCall("call_1", "lookup", `{"key":"release"}`),
	}}

	It("streams the event sequence openai-go and its helpers expect, each event named and numbered, and the completed response whole", func() {
		drv := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values(llm.StreamMessage(reasoned, &session.Usage{InputTokens: 3, OutputTokens: 4}, "")), nil
		})
		_, _, url := serveWire(drv)
		code, body := postResp(url, respReq(`"input":"hi"`, `"stream":true`), nil)
		Expect(code).To(Equal(http.StatusOK))
		var types []string
		for i, ev := range sseEvents(body) {
			parts := strings.Split(ev, "|")
			Expect(parts[0]).To(Equal(parts[1]), "the event: line names the data's type")
			Expect(parts[2]).To(Equal(fmt.Sprint(i)), "sequence_number")
			types = append(types, parts[1])
		}
		Expect(types).To(Equal([]string{
			"response.created", "response.in_progress",
			"response.output_item.added", "response.reasoning_summary_part.added",
			"response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
			"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
			"response.output_item.added", "response.content_part.added", "response.output_text.delta",
			"response.output_text.done", "response.content_part.done", "response.output_item.done",
			"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
			"response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
			"response.completed",
		}))
		frames := strings.Split(strings.TrimSpace(body), "\n\n")
		var done struct{ Response rs.Response }
		Expect(json.Unmarshal([]byte(strings.TrimPrefix(strings.Split(frames[len(frames)-1], "\n")[1], "data: ")), &done)).To(Succeed())
		r := done.Response
		Expect(r.Status).To(Equal("completed"))
		Expect(r.Usage).To(HaveField("InputTokens", 3))
		Expect(r.Output).To(HaveLen(3))
		Expect([]string{r.Output[0].Type, r.Output[1].Type, r.Output[2].Type}).To(Equal([]string{"reasoning", "message", "function_call"}))
		Expect(r.Output[0].Summary).To(Equal([]rs.Part{{Type: "summary_text", Text: "Check it."}}))
		Expect(*r.Output[2].Arguments).To(Equal(`{"key":"release"}`))
		for _, f := range frames {
			var top map[string]json.RawMessage
			Expect(json.Unmarshal([]byte(strings.TrimPrefix(strings.Split(f, "\n")[1], "data: ")), &top)).To(Succeed())
			Expect(top).NotTo(HaveKey("error"), "openai-go turns any event with a top-level error member into an error")
		}
	})

	It("ends a call that hit its token limit with response.incomplete, and a failed call with an error event as OpenAI sends it", func() {
		finish := session.FinishMaxTokens
		drv := llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
			if finish == session.FinishError {
				return slices.Values([]llm.Chunk{session.ErrorFinish("RATE_LIMIT", "slow down")}), nil
			}
			return slices.Values(llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("cut")}}, nil, finish)), nil
		})
		_, _, url := serveWire(drv)
		_, body := postResp(url, respReq(`"input":"hi"`, `"stream":true`), nil)
		Expect(sseEvents(body)[len(sseEvents(body))-1]).To(HavePrefix("response.incomplete|"))
		Expect(body).To(ContainSubstring(`"incomplete_details":{"reason":"max_output_tokens"}`))

		finish = session.FinishError
		_, body = postResp(url, respReq(`"input":"again"`, `"stream":true`), nil)
		Expect(body).To(HaveSuffix("event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,\"code\":\"RATE_LIMIT\",\"message\":\"slow down\",\"param\":null," +
			"\"error\":{\"type\":\"agentsnap_replay_error\",\"code\":\"RATE_LIMIT\",\"message\":\"slow down\",\"param\":null}}\n\n"))
		client := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
		stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
			Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("from the SDK")}})
		for stream.Next() {
		}
		Expect(stream.Err()).To(MatchError(ContainSubstring(`received error while streaming: {"type":"agentsnap_replay_error","code":"RATE_LIMIT","message":"slow down","param":null}`)), "openai-go's stream returns the error")
		code, whole := postResp(url, respReq(`"input":"and again"`), nil)
		Expect(code).To(Equal(http.StatusTooManyRequests))
		Expect(whole).To(MatchJSON(`{"error":{"type":"agentsnap_error","code":"RATE_LIMIT","message":"slow down","param":null}}`))

		finish = session.FinishAborted
		_, body = postResp(url, respReq(`"input":"cut short"`, `"stream":true`), nil)
		Expect(sseEvents(body)[len(sseEvents(body))-1]).To(HavePrefix("response.output_item.done|"))
		Expect(body).NotTo(ContainSubstring("event: response.completed"), "an aborted call ends as a cut connection does: no terminal event")
	})

	It("serves a recorded reasoning item under its recorded id with its encrypted content, and an agent that sends it back sends what the log holds", func() {
		meta := json.RawMessage(`{"openai-responses":{"id":"rs_rec","encrypted_content":"RU5D"}}`)
		answer := []llm.Chunk{
			{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockReasoning},
			{Type: session.ChunkReasoningDelta, Index: 0, Text: "Think."},
			{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockReasoning, Text: "Think.", Meta: meta}},
			{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockText},
			{Type: session.ChunkTextDelta, Index: 1, Text: "OK"},
			{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockText, Text: "OK"}},
			session.Finish(session.FinishStop),
		}
		drv := &capture{next: llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			return slices.Values(answer), nil
		})}
		h, store, url := serveWire(drv)
		r := okResp(url, respReq(`"input":"hi"`))
		Expect(r.Output[0].ID).To(Equal("rs_rec"))
		Expect(*r.Output[0].EncryptedContent).To(Equal("RU5D"))
		back, err := json.Marshal(r.Output)
		Expect(err).NotTo(HaveOccurred())
		okResp(url, respReq(`"input":[{"role":"user","content":"hi"},`+strings.Trim(string(back), "[]")+`,{"role":"user","content":"more"}]`))
		sent := drv.last().Messages[1]
		Expect(sent.Content[0].Meta).To(MatchJSON(meta))
		Expect(sent.Content[1].Meta).To(BeNil(), "the text's id is the call's, and the log holds none")
		Expect(rendered(h, store, "root")).NotTo(ContainSubstring("history replaced"))
	})
})
