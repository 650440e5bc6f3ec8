package llm_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Digester, its caller's tools changed in place", func() {
	// A runtime that keeps one tool list and edits it between calls (a
	// description reworded, a schema tightened) sends other tools: the
	// next header must digest them, not compare them with themselves.
	It("digests a tool whose description or parameters changed in place after a call", func() {
		var d llm.Digester
		tools := []llm.ToolSpec{{Name: "lookup", Description: "Looks a key up.", Parameters: json.RawMessage(`{"type":"object"}`)}}
		req := &llm.Request{Tools: tools, Messages: []session.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("hi")}}}}
		first := d.Header("p", req)
		tools[0].Description = "Looks a key up, case-blind."
		h := d.Header("p", req)
		Expect(h).To(Equal(llm.RequestHeader("p", req)))
		Expect(h.ToolsDigest).NotTo(Equal(first.ToolsDigest))
		copy(tools[0].Parameters, `{"type":"objecT"}`) // the schema's bytes, in place
		Expect(d.Header("p", req)).To(Equal(llm.RequestHeader("p", req)))
	})
})
