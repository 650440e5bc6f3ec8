package anthropic_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mediaRequest has an image and a document in the user's first message,
// and an image in a tool's result, between texts, the first text and the
// image each with a cache breakpoint.
const mediaRequest = `{"model":"claude-x","max_tokens":1024,"stream":true,"messages":[
	{"role":"user","content":[{"type":"text","text":"What is this?"},
		{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="}},
		{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hi"},"title":"notes"}]},
	{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"shot","input":{}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"the screen:","cache_control":{"type":"ephemeral","ttl":"1h"}},
		{"type":"image","source":{"type":"url","url":"https://example.com/s.png"},"cache_control":{"type":"ephemeral"}},{"type":"text","text":"done"}]}]}]}`

var _ = Describe("images and documents in a request", func() {
	It("are parts of their own, where the agent put them, with a digest and no bytes", func() {
		call, err := anthropic.DecodeRequest([]byte(mediaRequest))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Messages[0].Content).To(Equal([]session.Part{session.TextPart("What is this?"),
			{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", MediaType: "image/png", Bytes: 5}},
			{Type: session.PartFile, Attachment: &session.Attachment{ID: "sha256:8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4", MediaType: "text/plain", Bytes: 2, Name: "notes"}},
		}))
		Expect(call.Messages[2].Content[0].Content).To(Equal([]session.Part{session.TextPart("the screen:"),
			{Type: session.PartImage, Attachment: &session.Attachment{URL: "https://example.com/s.png"}}, session.TextPart("done")}))
	})

	It("reach a live model of the same API as the agent sent them, and no other, each breakpoint where it was", func() {
		call, err := anthropic.DecodeRequest([]byte(mediaRequest))
		Expect(err).NotTo(HaveOccurred())
		req := &llm.Request{Model: call.Model, Messages: call.Messages, API: anthropic.API, Settings: json.RawMessage(`{"max_tokens":1024}`),
			Forward: &anthropic.Forward{Media: call.Media, Cache: call.Cache}}
		b, err := anthropic.Messages{}.Encode(req, call.Model)
		Expect(err).NotTo(HaveOccurred())
		var sent, got struct{ Messages json.RawMessage }
		Expect(json.Unmarshal([]byte(mediaRequest), &sent)).To(Succeed())
		Expect(json.Unmarshal(b, &got)).To(Succeed())
		Expect(string(got.Messages)).To(MatchJSON(sent.Messages))

		for _, other := range []*llm.Request{
			{Messages: call.Messages},                     // a runtime's own call
			{Messages: call.Messages, API: "gemini"},      // another API's
			{Messages: call.Messages, API: anthropic.API}, // nothing forwarded
		} {
			_, err := anthropic.Messages{}.Encode(other, "claude-x")
			Expect(err).To(MatchError(And(ContainSubstring("messages[0]: content[1]: an image part (image/png 5 bytes sha256:2cf24dba5fb0…)"),
				ContainSubstring("agentsnap cannot send it here"))))
		}
	})

	It("are read against the last request as in a whole one", func() {
		first := `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"file_1"}}]}]}`
		second := `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"file_1"}}]},` +
			`{"role":"assistant","content":"A cat."},{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lG"}}]}]}`
		prev, err := anthropic.DecodeNext(nil, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		d, err := anthropic.DecodeNext(prev, []byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Reused).To(Equal(1))
		whole, err := anthropic.DecodeRequest([]byte(second))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Call).To(Equal(whole))
		Expect(d.Call.Media).To(HaveLen(2))
		Expect(prev.Call.Media).To(HaveLen(1), "the one read against is unchanged")
	})

	DescribeTable("that agentsnap does not record yet are refused, never dropped, naming where and what",
		func(content, want string) {
			_, err := anthropic.DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},` +
				`{"role":"user","content":` + content + `}]}`))
			Expect(err).To(MatchError(And(HavePrefix(want), ContainSubstring("agentsnap does not record it yet"))))
		},
		Entry("a search result", `[{"type":"search_result","source":"s","title":"t","content":[]}]`, `messages[2].content[0]: a "search_result" part`),
		Entry("a document of content blocks", `[{"type":"document","source":{"type":"content","content":[]}}]`, `messages[2].content[0]: a "document with a \"content\" source" part`),
		Entry("a search result in a tool's result", `[{"type":"tool_result","tool_use_id":"t","content":[{"type":"search_result","source":"s","title":"t","content":[]}]}]`,
			`messages[2].content[0].content[0]: a "search_result" part`),
	)
})

var _ = Describe("an image whose cache breakpoint the agent moves to the newest message", func() {
	It("is read against the last request, and the live model gets its block as the agent sent it this time", func() {
		image := func(marked bool) string {
			cc := ""
			if marked {
				cc = `,"cache_control":{"type":"ephemeral"}`
			}
			return `{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="}` + cc + `}]}`
		}
		answer := `{"role":"assistant","content":"A cat."}`
		ask := `{"role":"user","content":[{"type":"text","text":"Sure?","cache_control":{"type":"ephemeral"}}]}`
		prev := decodeBoth(nil, msgsBody(nextHead, []string{image(true)}, nextTail))
		body := msgsBody(nextHead, []string{image(false), answer, ask}, nextTail)
		d := decodeBoth(prev, body)
		Expect(d.Reused).To(Equal(1), "read against the last request, though the image's block changed")
		req := &llm.Request{Model: d.Call.Model, Messages: d.Call.Messages, API: anthropic.API, Settings: json.RawMessage(`{"max_tokens":1024}`),
			Forward: &anthropic.Forward{Media: d.Call.Media, Cache: d.Call.Cache}}
		b, err := anthropic.Messages{}.Encode(req, d.Call.Model)
		Expect(err).NotTo(HaveOccurred())
		var sent, got struct{ Messages json.RawMessage }
		Expect(json.Unmarshal(body, &sent)).To(Succeed())
		Expect(json.Unmarshal(b, &got)).To(Succeed())
		Expect(string(got.Messages)).To(MatchJSON(sent.Messages), "the image without its old breakpoint")
	})
})
