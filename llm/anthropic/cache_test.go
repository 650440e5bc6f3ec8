package anthropic_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/internal/nexttest"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// cachedRequest puts a cache_control everywhere the Messages API takes
// one: a system block, a tool, a text block, a tool_use block, a
// tool_result block, a tool result's content, and a text after the
// results. It is written as the driver writes a request, so what the
// live model gets can be compared with it member for member.
const cachedRequest = `{
  "model": "claude-x", "max_tokens": 1024, "stream": true,
  "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "Answer in English."}],
  "tools": [{"name": "lookup", "description": "Look up a fact.", "input_schema": {"type": "object"}},
    {"name": "now", "description": "The time.", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "Release?", "cache_control": {"type": "ephemeral"}}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Looking."},
      {"type": "tool_use", "id": "toolu_l", "name": "lookup", "input": {"key": "release"}, "cache_control": {"type": "ephemeral"}},
      {"type": "tool_use", "id": "toolu_n", "name": "now", "input": {}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_l", "content": "v2.4.1", "cache_control": {"type": "ephemeral"}},
      {"type": "tool_result", "tool_use_id": "toolu_n", "content": [{"type": "text", "text": "noon", "cache_control": {"type": "ephemeral"}}]},
      {"type": "text", "text": "Be brief."},
      {"type": "text", "text": "And kind.", "cache_control": {"type": "ephemeral"}}]}
  ]
}`

// liveBody is the body a live Messages driver sends for call, decoded
// from this API (forward: with what the wire layer forwards).
func liveBody(call *anthropic.Call, forward bool) map[string]json.RawMessage {
	GinkgoHelper()
	req := &llm.Request{Model: call.Model, System: call.System, Messages: call.Messages, Tools: call.Tools,
		API: anthropic.API, Settings: json.RawMessage(`{"max_tokens":1024}`)}
	if forward {
		req.Forward = &anthropic.Forward{Cache: call.Cache}
	}
	b, err := anthropic.Messages{}.Encode(req, call.Model)
	Expect(err).NotTo(HaveOccurred())
	var body map[string]json.RawMessage
	Expect(json.Unmarshal(b, &body)).To(Succeed())
	return body
}

var _ = Describe("the prompt cache's breakpoints", func() {
	It("reach the live model where the agent put them: system blocks, tools, text, tool_use, tool_result and its content", func() {
		var sent map[string]json.RawMessage
		Expect(json.Unmarshal([]byte(cachedRequest), &sent)).To(Succeed())
		call, err := anthropic.DecodeRequest([]byte(cachedRequest))
		Expect(err).NotTo(HaveOccurred())
		body := liveBody(call, true)
		for _, member := range []string{"system", "tools", "messages"} {
			Expect(string(body[member])).To(MatchJSON(sent[member]), member)
		}
	})

	It("are where the agent put them when the request is read against the last one, a breakpoint moved to the new message", func() {
		first := `{"model":"claude-x","system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[` +
			`{"role":"user","content":[{"type":"text","text":"one","cache_control":{"type":"ephemeral"}}]}]}`
		prev, err := anthropic.DecodeNext(nil, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		for _, next := range []string{
			// the agent keeps its first breakpoint and adds one
			`{"model":"claude-x","system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[` +
				`{"role":"user","content":[{"type":"text","text":"one","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":"two"},` +
				`{"role":"user","content":[{"type":"text","text":"three","cache_control":{"type":"ephemeral"}}]}]}`,
			// the same, the system prompt's breakpoint gone
			`{"model":"claude-x","system":"S","messages":[` +
				`{"role":"user","content":[{"type":"text","text":"one","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":"two"},` +
				`{"role":"user","content":[{"type":"text","text":"three","cache_control":{"type":"ephemeral"}}]}]}`,
		} {
			d, err := anthropic.DecodeNext(prev, []byte(next))
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Reused).To(Equal(1), "read against the last request")
			var sent map[string]json.RawMessage
			Expect(json.Unmarshal([]byte(next), &sent)).To(Succeed())
			body := liveBody(d.Call, true)
			Expect(string(body["messages"])).To(MatchJSON(sent["messages"]))
			Expect(string(body["system"])).To(MatchJSON(sent["system"]))
		}
	})

	It("are read alike for two requests read against the same one at the same time: one grows the marks in place, the other copies them", func() {
		marked := func(text string) string {
			return `{"role":"user","content":[{"type":"text","text":"` + text + `","cache_control":{"type":"ephemeral","ttl":"` + text + `"}}]}`
		}
		// Three marks, in a slice with room for a fourth: each request adds one.
		msgs := []string{marked("a"), `{"role":"assistant","content":"b"}`, marked("c"), `{"role":"assistant","content":"d"}`, marked("e")}
		prev := decodeBoth(nil, msgsBody(nextHead, msgs, nextTail))
		bodies := [][]byte{
			msgsBody(nextHead, append(msgs[:5:5], `{"role":"assistant","content":"f"}`, marked("g")), nextTail),
			msgsBody(nextHead, append(msgs[:5:5], `{"role":"assistant","content":"h"}`, `{"role":"user","content":"i"}`, `{"role":"assistant","content":"j"}`, marked("k")), nextTail),
		}
		got, errs := nexttest.AtOnce(bodies, func(b []byte) (*anthropic.Decoded, error) { return anthropic.DecodeNext(prev, b) })
		Expect(errs).To(HaveEach(Succeed()))
		for i, b := range bodies {
			want, err := anthropic.DecodeRequest(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Call).To(Equal(want))
			Expect(got[i].Reused).To(Equal(5))
			Expect(string(got[i].Call.Cache.Marks[3].CacheControl)).To(Equal(map[int]string{0: `{"type":"ephemeral","ttl":"g"}`, 1: `{"type":"ephemeral","ttl":"k"}`}[i]))
			Expect(got[i].Call.Cache.Marks).To(HaveLen(4))
		}
		Expect(prev.Call.Cache.Marks).To(HaveLen(3), "the one read against is unchanged")
	})

	It("are not sent with a call of a runtime on llm.Driver or of another API, nor recorded in the call's terms", func() {
		call, err := anthropic.DecodeRequest([]byte(cachedRequest))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(liveBody(call, false)["system"])).To(Equal(`"You are terse.\n\nAnswer in English."`))
		Expect(liveBody(call, false)["messages"]).NotTo(ContainSubstring("cache_control"))
		req := &llm.Request{Model: "m", Messages: call.Messages, API: "openai-chat", Forward: &anthropic.Forward{Cache: call.Cache}}
		b, err := anthropic.Messages{}.Encode(req, "m")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).NotTo(ContainSubstring("cache_control"))
		parts, err := json.Marshal(call.Messages)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(parts)).NotTo(ContainSubstring("cache"), "the log's messages are the same with or without breakpoints")
	})
})
