package llm_test

import (
	"encoding/json"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("RequestHeader's tools digest", func() {
	DescribeTable("is the digest of the tools as MarshalData encodes them",
		func(tools []llm.ToolSpec) {
			b, _ := session.MarshalData(tools) // nil when the tools do not encode
			h := llm.RequestHeader("p", &llm.Request{Tools: tools})
			Expect(h.ToolsDigest).To(Equal(llm.Digest(b)))
		},
		Entry("no tools", []llm.ToolSpec(nil)),
		Entry("an empty list", []llm.ToolSpec{}),
		Entry("tools", []llm.ToolSpec{
			{Name: "add", Description: "Adds a and b.", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "lookup", Description: "Looks <key> up & returns it.", Parameters: json.RawMessage(`{"properties":{"key":{"type":"string"}}}`)},
		}),
		Entry("awkward text", []llm.ToolSpec{{Name: "n\b\f\x01\"\\", Description: "bad \xff utf-8, \u2028 \b\f", Parameters: json.RawMessage(`{}`)}}),
		Entry("spaced parameters, compacted", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(" {\n  \"type\" : \"object\",\t\"x\": [ 1, 2 ] }\n")}}),
		Entry("parameters with HTML characters", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"d":"<a> & \u003c"}`)}}),
		Entry("parameters with invalid UTF-8 and U+2028 in strings", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage("{\"d\": \"bad \xff \u2028\"}")}}),
		Entry("no parameters", []llm.ToolSpec{{Name: "a"}}),
		Entry("empty parameters, which do not encode", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage{}}}),
		Entry("broken parameters, which do not encode", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"a":`)}}),
	)
})

var _ = Describe("RequestHeader's tool digests", func() {
	DescribeTable("are, per tool in the order of toolNames, the digest of the tool as MarshalData encodes it, cut to 12 characters",
		func(tools []llm.ToolSpec) {
			h := llm.RequestHeader("p", &llm.Request{Tools: tools})
			Expect(h.ToolDigests).To(HaveLen(len(tools)))
			for i := range tools {
				b, _ := session.MarshalData(&tools[i]) // nil when the tool does not encode
				Expect(h.ToolDigests[i]).To(Equal(llm.Digest(b)[:12]), "tool %d", i)
			}
			var d llm.Digester
			Expect(d.Header("p", &llm.Request{Tools: tools})).To(Equal(h), "the Digester's are the same")
		},
		Entry("no tools", []llm.ToolSpec(nil)),
		Entry("an empty list", []llm.ToolSpec{}),
		Entry("tools", []llm.ToolSpec{
			{Name: "add", Description: "Adds a and b.", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "lookup", Description: "Looks <key> up & returns it.", Parameters: json.RawMessage(`{"properties":{"key":{"type":"string"}}}`)},
			{Name: "last", Description: "The third.", Parameters: json.RawMessage(`{}`)},
		}),
		Entry("spaced parameters, compacted", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(" {\n  \"type\" : \"object\" }\n")}, {Name: "b"}}),
		Entry("broken parameters of one tool, which do not encode", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{}`)}, {Name: "b", Parameters: json.RawMessage(`{"a":`)}}),
	)

	It("tells apart a tool whose description changed, and only it", func() {
		tools := []llm.ToolSpec{{Name: "a", Description: "A.", Parameters: json.RawMessage(`{}`)}, {Name: "b", Description: "B.", Parameters: json.RawMessage(`{}`)}}
		before := llm.RequestHeader("p", &llm.Request{Tools: tools})
		tools[1].Description = "B, better."
		after := llm.RequestHeader("p", &llm.Request{Tools: tools})
		Expect(after.ToolDigests[0]).To(Equal(before.ToolDigests[0]))
		Expect(after.ToolDigests[1]).NotTo(Equal(before.ToolDigests[1]))
	})

	It("are hashed once per session while the tools do not change, a child's included", func() {
		tools := []llm.ToolSpec{{Name: "a", Description: "A.", Parameters: json.RawMessage(`{}`)}}
		var d llm.Digester
		stop := llm.CountToolDigests()
		for range 10 {
			d.Header("p", &llm.Request{Tools: slices.Clone(tools)})
		}
		child := d.Fork()
		child.Header("p", &llm.Request{Tools: tools})
		tools[0].Description = "A, better."
		d.Header("p", &llm.Request{Tools: tools})
		Expect(stop()).To(Equal(2), "the first call's tools, then the changed ones")
	})
})

var _ = Describe("RequestHeader's message digests", func() {
	conversation := func(n int) []llm.Message {
		var out []llm.Message
		for i := range n {
			out = append(out, llm.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(strings.Repeat("x", i))}})
		}
		return out
	}

	It("digests each message's JSON and the conversation as the contract says", func() {
		msgs := conversation(3)
		h := llm.RequestHeader("p", &llm.Request{Messages: msgs})
		var lines strings.Builder
		for i, m := range msgs {
			b, err := session.MarshalData(m)
			Expect(err).NotTo(HaveOccurred())
			d := llm.Digest(b)
			Expect(llm.MessageDigest(&msgs[i])).To(Equal(d))
			Expect(h.MessageDigests[i]).To(Equal(d[:12]))
			lines.WriteString(d + "\n")
		}
		Expect(h.MessageDigests).To(HaveLen(3))
		Expect(h.MessageCount).To(Equal(3))
		Expect(h.MessagesDigest).To(Equal(llm.Digest([]byte(lines.String()))))
		Expect(llm.RequestHeader("p", &llm.Request{}).MessagesDigest).To(Equal(llm.Digest(nil)))
	})

	It("comes out the same from digests kept as the conversation grew (DigestChain)", func() {
		var chain llm.DigestChain
		Expect(chain.Sum()).To(Equal(llm.Digest(nil)))
		msgs := conversation(5)
		var digests []string
		for i := range msgs {
			digests = append(digests, llm.MessageDigest(&msgs[i]))
			chain.Add(digests[i])
			req := &llm.Request{Messages: msgs[:i+1]}
			Expect(llm.RequestHeaderChain("p", req, digests, &chain)).To(Equal(llm.RequestHeader("p", req)))
			Expect(llm.RequestHeaderDigests("p", req, digests)).To(Equal(llm.RequestHeader("p", req)))
		}
	})
})

var _ = Describe("RequestHeader's systemChars", func() {
	DescribeTable("counts the system prompt's runes, an invalid byte as one",
		func(system string) {
			h := llm.RequestHeader("p", &llm.Request{System: system})
			Expect(h.SystemChars).To(Equal(len([]rune(system))))
		},
		Entry("ASCII", "You are a helpful agent."),
		Entry("accents and emoji", "café — 🙂"),
		Entry("invalid UTF-8", "bad \xff\xfe \xe2\x82 end"),
		Entry("empty", ""),
	)
})
