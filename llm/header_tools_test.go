package llm_test

import (
	"encoding/json"
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
		Entry("awkward text", []llm.ToolSpec{{Name: "n\b\f\x01\"\\", Description: "bad \xff utf-8, \u2028", Parameters: json.RawMessage(`{}`)}}),
		Entry("spaced parameters, compacted", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(" {\n  \"type\" : \"object\",\t\"x\": [ 1, 2 ] }\n")}}),
		Entry("parameters with HTML characters", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"d":"<a> & \u003c"}`)}}),
		Entry("parameters with invalid UTF-8 and U+2028 in strings", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage("{\"d\": \"bad \xff \u2028\"}")}}),
		Entry("no parameters", []llm.ToolSpec{{Name: "a"}}),
		Entry("empty parameters, which do not encode", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage{}}}),
		Entry("broken parameters, which do not encode", []llm.ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"a":`)}}),
	)
})

var _ = Describe("DigestChain", func() {
	It("gives the messagesDigest of the digests added so far, as RequestHeaderDigests computes it", func() {
		var chain llm.DigestChain
		Expect(chain.Sum()).To(Equal(llm.Digest(nil)))
		var digests []string
		for i := range 5 {
			m := llm.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(strings.Repeat("x", i))}}
			digests = append(digests, llm.MessageDigest(&m))
			chain.Add(digests[i])
			want := llm.Digest([]byte(strings.Join(digests, "\n") + "\n"))
			Expect(chain.Sum()).To(Equal(want))
			req := &llm.Request{Messages: make([]llm.Message, i+1)}
			Expect(llm.RequestHeaderChain("p", req, digests, &chain)).To(Equal(llm.RequestHeaderDigests("p", req, digests)))
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
