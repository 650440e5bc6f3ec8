package llm_test

import (
	"encoding/json"
	"reflect"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("Digester", func() {
	text := func(role, s string) session.Message {
		return session.Message{Role: role, Content: []session.Part{session.TextPart(s)}}
	}
	call := session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: "c1", Name: "lookup", Arguments: `{"k":"a"}`}}}
	result := session.Message{Role: session.RoleTool, Content: []session.Part{{Type: session.PartToolResult, ToolCallID: "c1", Name: "lookup",
		Content: []session.Part{session.TextPart("A")}, IsError: false}}}
	tools := []llm.ToolSpec{{Name: "lookup", Description: "Looks a key up.", Parameters: json.RawMessage(`{"type":"object"}`)}}

	// same checks that the digester's payload is RequestHeader's.
	same := func(d *llm.Digester, req *llm.Request) {
		GinkgoHelper()
		Expect(d.Header("p", req)).To(Equal(llm.RequestHeader("p", req)))
	}

	It("gives RequestHeader's payload for a conversation that grows, is rewritten, and changes its prompt and tools", func() {
		var d llm.Digester
		msgs := []session.Message{text(session.RoleUser, "hi")}
		req := &llm.Request{Model: "m", System: "sys", Tools: tools, Messages: msgs}
		same(&d, req)
		req.Messages = append(msgs, call, result)
		same(&d, req)
		req.Messages = []session.Message{text(session.RoleUser, "For context: hi"), call} // rewritten
		same(&d, req)
		req.System, req.Tools = "other", nil
		same(&d, req)
		req.Tools = []llm.ToolSpec{}
		same(&d, req)
		req.Messages = nil
		same(&d, req)
		req.Messages = []session.Message{}
		same(&d, req)
	})

	It("hashes each message once while the conversation only grows", func() {
		var d llm.Digester
		stop := llm.CountMessageDigests()
		conv := []session.Message{text(session.RoleUser, "hi")}
		for range 20 {
			d.Header("p", &llm.Request{Messages: conv})
			conv = append(conv, text(session.RoleAssistant, "more"))
		}
		Expect(stop()).To(Equal(20), "the messages of 20 calls, each one message longer")
	})

	It("hashes a rewritten conversation from where it differs", func() {
		var d llm.Digester
		conv := []session.Message{text(session.RoleUser, "a"), text(session.RoleAssistant, "b"), text(session.RoleUser, "c")}
		d.Header("p", &llm.Request{Messages: conv})
		stop := llm.CountMessageDigests()
		changed := []session.Message{conv[0], text(session.RoleAssistant, "B"), conv[2], text(session.RoleAssistant, "d")}
		Expect(d.Header("p", &llm.Request{Messages: changed})).To(Equal(llm.RequestHeader("p", &llm.Request{Messages: changed})))
		Expect(stop()).To(Equal(3))
	})

	It("gives headers whose message digests stay as given while the conversation grows and is rewritten", func() {
		var d llm.Digester
		conv := []session.Message{text(session.RoleUser, "a"), text(session.RoleAssistant, "b")}
		var headers []session.RequestHeaderData
		var lists [][]string // each header's digests, copied when it was given
		keep := func(msgs []session.Message) {
			h := d.Header("p", &llm.Request{Messages: msgs})
			headers, lists = append(headers, h), append(lists, slices.Clone(h.MessageDigests))
		}
		keep(conv)
		keep(append(conv, text(session.RoleUser, "c")))
		keep([]session.Message{conv[0], text(session.RoleAssistant, "B"), text(session.RoleUser, "C")}) // rewritten
		keep([]session.Message{conv[0], text(session.RoleAssistant, "B"), text(session.RoleUser, "C"), text(session.RoleAssistant, "D")})
		for i, h := range headers {
			Expect(h.MessageDigests).To(Equal(lists[i]), "header %d", i+1)
			h.MessageDigests = append(h.MessageDigests, "appended") // a caller's append copies
		}
		for i, h := range headers {
			Expect(h.MessageDigests).To(Equal(lists[i]), "header %d after the callers' appends", i+1)
		}
	})

	It("is not fooled by a caller that changes its messages in place after a call", func() {
		var d llm.Digester
		conv := []session.Message{text(session.RoleUser, "a"), result}
		d.Header("p", &llm.Request{Messages: conv})
		conv[0].Content[0].Text = "changed"
		conv[1].Content[0].Content[0].Text = "changed too"
		same(&d, &llm.Request{Messages: conv})
		conv[1].Content[0].IsError = true
		same(&d, &llm.Request{Messages: conv})
		conv[1].Content[0].Meta = json.RawMessage(`{"x":1}`)
		same(&d, &llm.Request{Messages: conv})
		conv[0].Content = append(conv[0].Content, session.Part{Type: session.PartImage, Attachment: &session.Attachment{ID: "sha256:a"}})
		same(&d, &llm.Request{Messages: conv})
		conv[0].Content[1].Attachment.ID = "sha256:b" // another image, in place
		same(&d, &llm.Request{Messages: conv})
	})

	It("is not fooled by a caller that changes only the text inside a tool result after a call", func() {
		var d llm.Digester
		res := result
		res.Content = []session.Part{result.Content[0]}
		res.Content[0].Content = []session.Part{session.TextPart("A")}
		conv := []session.Message{text(session.RoleUser, "a"), call, res}
		d.Header("p", &llm.Request{Messages: conv})
		res.Content[0].Content[0].Text = "changed" // the digester's copy must not share this part
		same(&d, &llm.Request{Messages: conv})
	})

	It("tells apart every member of a part, so no change goes unhashed", func() {
		// SameMessage compares fields one by one: a field added to
		// session.Part must be added to it.
		Expect(reflect.TypeFor[session.Part]().NumField()).To(Equal(10))
		Expect(reflect.TypeFor[session.Message]().NumField()).To(Equal(3))
		base := session.Part{Type: "t", Text: "x", ID: "i", Name: "n", Arguments: "{}", ToolCallID: "c", Content: []session.Part{}, Meta: json.RawMessage(`{}`),
			Attachment: &session.Attachment{ID: "sha256:a"}}
		for _, change := range []func(p *session.Part){
			func(p *session.Part) { p.Type = "u" }, func(p *session.Part) { p.Text = "y" }, func(p *session.Part) { p.ID = "j" },
			func(p *session.Part) { p.Name = "m" }, func(p *session.Part) { p.Arguments = "[]" }, func(p *session.Part) { p.ToolCallID = "d" },
			func(p *session.Part) { p.Content = nil }, func(p *session.Part) { p.Content = []session.Part{{}} }, func(p *session.Part) { p.IsError = true },
			func(p *session.Part) { p.Meta = nil }, func(p *session.Part) { p.Meta = json.RawMessage(`{"a":1}`) },
			func(p *session.Part) { p.Attachment = nil }, func(p *session.Part) { p.Attachment = &session.Attachment{ID: "sha256:b"} },
		} {
			p := base
			change(&p)
			a := session.Message{Role: "r", Content: []session.Part{base}}
			b := session.Message{Role: "r", Content: []session.Part{p}}
			Expect(llm.SameMessage(&a, &b)).To(BeFalse(), "%+v", p)
		}
		a := session.Message{Role: "r", Content: []session.Part{base}}
		for _, b := range []session.Message{{Role: "s", Content: a.Content}, {Role: "r", Content: a.Content, ID: "x"}, {Role: "r"}} {
			Expect(llm.SameMessage(&a, &b)).To(BeFalse(), "%+v", b)
		}
		c := session.Message{Role: "r", Content: []session.Part{base}}
		Expect(llm.SameMessage(&a, &c)).To(BeTrue())
	})

	It("hands a child the system prompt and tools it digested, and digests the child's own when they differ", func() {
		var parent llm.Digester
		parent.Header("p", &llm.Request{System: "sys", Tools: tools})
		child := parent.Fork()
		req := &llm.Request{System: "sys", Tools: tools, Messages: []session.Message{text(session.RoleUser, "task")}}
		same(&child, req)
		req.System, req.Tools = "child sys", tools[:0]
		same(&child, req)
		// The parent keeps its own.
		same(&parent, &llm.Request{System: "sys", Tools: tools})
	})
})
