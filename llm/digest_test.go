package llm_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Guarantees of the Digester that mutation testing found unguarded: every
// change of what a call sends changes its request/header as RequestHeader
// would.
var _ = Describe("Digester, on changes the other specs do not make", func() {
	same := func(d *llm.Digester, req *llm.Request) {
		GinkgoHelper()
		Expect(d.Header("p", req)).To(Equal(llm.RequestHeader("p", req)))
	}
	hi := []session.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("hi")}}}

	It("digests the tools again when only a description changed", func() {
		var d llm.Digester
		req := &llm.Request{Messages: hi, Tools: []llm.ToolSpec{{Name: "t", Description: "one", Parameters: json.RawMessage(`{}`)}}}
		first := d.Header("p", req)
		req.Tools = []llm.ToolSpec{{Name: "t", Description: "two", Parameters: json.RawMessage(`{}`)}}
		second := d.Header("p", req)
		Expect(second.ToolsDigest).NotTo(Equal(first.ToolsDigest))
		Expect(second).To(Equal(llm.RequestHeader("p", req)))
	})

	It("tells a tool's nil parameters from empty ones, as the encoding does", func() {
		var d llm.Digester
		req := &llm.Request{Messages: hi, Tools: []llm.ToolSpec{{Name: "t", Description: "d"}}}
		same(&d, req)
		req.Tools = []llm.ToolSpec{{Name: "t", Description: "d", Parameters: json.RawMessage{}}}
		same(&d, req)
		req.Tools = []llm.ToolSpec{{Name: "t", Description: "d"}}
		same(&d, req)
	})

	It("digests every message when told more are repeated than the last call sent", func() {
		var d llm.Digester
		msgs := append(hi, session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("hello")}},
			session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("again")}})
		req := &llm.Request{Messages: msgs[:1]}
		Expect(d.HeaderRepeating("p", req, 0)).To(Equal(llm.RequestHeader("p", req)))
		req = &llm.Request{Messages: msgs}
		Expect(d.HeaderRepeating("p", req, 2)).To(Equal(llm.RequestHeader("p", req)))
	})
})
