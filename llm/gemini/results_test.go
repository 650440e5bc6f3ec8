package gemini_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("an agent's function responses, as tool results", func() {
	It("keep the id each response names, whatever order they come in: a name pairs only a response without one", func() {
		c := decode(`{"contents":[
			{"role":"user","parts":[{"text":"Go."}]},
			{"role":"model","parts":[
				{"functionCall":{"id":"fc_1","name":"lookup","args":{"key":"a"}}},
				{"functionCall":{"id":"fc_2","name":"lookup","args":{"key":"b"}}}
			]},
			{"role":"user","parts":[
				{"functionResponse":{"id":"fc_2","name":"lookup","response":{"output":"B"}}},
				{"functionResponse":{"id":"fc_1","name":"lookup","response":{"output":"A"}}}
			]}
		]}`)
		Expect(c.Messages[2:]).To(Equal([]session.Message{
			result("fc_2", "lookup", "B", false),
			result("fc_1", "lookup", "A", false),
		}))
	})

	It("split a user content's text around them: the text after a response is a user message of its own, after it", func() {
		c := decode(`{"contents":[
			{"role":"user","parts":[{"text":"Go."}]},
			{"role":"model","parts":[{"functionCall":{"id":"fc_1","name":"lookup","args":{}}}]},
			{"role":"user","parts":[
				{"text":"Before."},
				{"functionResponse":{"id":"fc_1","name":"lookup","response":{"output":"A"}}},
				{"text":"After."}
			]}
		]}`)
		Expect(c.Messages[2:]).To(Equal([]session.Message{
			{Role: session.RoleUser, Content: []session.Part{text("Before.")}},
			result("fc_1", "lookup", "A", false),
			{Role: session.RoleUser, Content: []session.Part{text("After.")}},
		}))
	})
})
