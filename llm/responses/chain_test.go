package responses_test

import (
	"fmt"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
)

// chainBody is a request that continues response prev with these items,
// stored (the default), so that it may be continued in turn.
func chainBody(prev string, items ...string) []byte {
	in := ""
	for i, it := range items {
		if i > 0 {
			in += ","
		}
		in += it
	}
	return []byte(`{"model":"gpt-x","instructions":"Be terse.","previous_response_id":"` + prev + `","input":[` + in + `],"stream":true}`)
}

// callAnswer is an answer that calls lookup with call id id.
func callAnswer(id string) session.Message {
	return session.Message{Role: session.RoleAssistant, Content: []session.Part{{Type: session.PartToolCall, ID: id, Name: "lookup", Arguments: "{}"}}}
}

// output is a function_call_output item for call id.
func output(id, text string) string {
	return fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":%q}`, id, text)
}

var _ = Describe("a chain of Responses requests by previous_response_id", func() {
	// start reads an agent's first request, of five messages (whose slice
	// has room after them, as a growing one has), and keeps its answer as
	// resp_0.
	start := func(s *responses.Served) *responses.Next {
		first := decodeBoth(s, nil, []byte(`{"model":"gpt-x","instructions":"Be terse.","input":[{"role":"user","content":"Which release?"},`+
			`{"role":"assistant","content":"Which one?"},{"role":"user","content":"The current."},{"role":"assistant","content":"Of what?"},`+
			`{"role":"user","content":"Of the product."}],"stream":true}`))
		Expect(first.Decoded.Messages).To(HaveLen(5))
		s.PutNext("resp_0", first, callAnswer("call_0"), nil, true)
		return first
	}

	It("reads a request against the one whose answer it continues: that request's messages come first, the same values, and the outputs take their calls' names", func() {
		s := responses.NewServed()
		prev := start(s)
		for i := 1; i <= 20; i++ {
			d := decodeBoth(s, prev, chainBody(fmt.Sprintf("resp_%d", i-1), output(fmt.Sprintf("call_%d", i-1), fmt.Sprint("v", i))))
			Expect(d.Reused).To(Equal(len(prev.Decoded.Messages)), "link %d", i)
			Expect(d.Decoded.Messages[:d.Reused]).To(Equal(prev.Decoded.Messages))
			msgs := d.Decoded.Messages
			Expect(msgs).To(HaveLen(5 + 2*i))
			Expect(msgs[len(msgs)-2]).To(Equal(callAnswer(fmt.Sprintf("call_%d", i-1))))
			Expect(msgs[len(msgs)-1].Content[0].Name).To(Equal("lookup"))
			s.PutNext(fmt.Sprintf("resp_%d", i), d, callAnswer(fmt.Sprintf("call_%d", i)), nil, true)
			prev = d
		}
	})

	It("reuses nothing of a request whose answer it does not continue: an earlier one, or none", func() {
		s := responses.NewServed()
		first := start(s)
		second := decodeBoth(s, first, chainBody("resp_0", output("call_0", "v")))
		s.PutNext("resp_1", second, callAnswer("call_1"), nil, true)
		Expect(decodeBoth(s, second, chainBody("resp_0", output("call_0", "again"))).Reused).To(BeZero(), "an earlier response")
		Expect(decodeBoth(s, nil, chainBody("resp_1", output("call_1", "v"))).Reused).To(BeZero(), "no request to read against")
		s.Put("resp_9", second.Decoded.Messages, callAnswer("call_9"), nil, true)
		Expect(decodeBoth(s, second, chainBody("resp_9", output("call_9", "v"))).Reused).To(BeZero(), "kept by Put: from no request")
	})

	It("gives each request that continues the same response its own conversation", func() {
		s := responses.NewServed()
		first := start(s)
		a := decodeBoth(s, first, chainBody("resp_0", output("call_0", "a")))
		b := decodeBoth(s, first, chainBody("resp_0", `{"role":"user","content":"b"}`))
		c := decodeBoth(s, first, chainBody("resp_0", output("call_0", "c"), `{"role":"user","content":"more"}`))
		Expect(a.Decoded.Messages[6].Content[0].Content[0].Text).To(Equal("a"))
		Expect(b.Decoded.Messages[6].Content[0].Text).To(Equal("b"))
		Expect(c.Decoded.Messages[6].Content[0].Content[0].Text).To(Equal("c"))
		Expect(c.Decoded.Messages[7].Content[0].Text).To(Equal("more"))
		Expect(a.Decoded.Messages).To(HaveLen(7))
		Expect(first.Decoded.Messages).To(HaveLen(5))
	})

	It("costs the same a call however long the chain grows: the conversation is not copied", func() {
		s := responses.NewServed()
		prev := start(s)
		link := func(i int) {
			d, err := s.DecodeNext(prev, chainBody(fmt.Sprintf("resp_%d", i-1), output(fmt.Sprintf("call_%d", i-1), "v")))
			Expect(err).NotTo(HaveOccurred())
			s.PutNext(fmt.Sprintf("resp_%d", i), d, callAnswer(fmt.Sprintf("call_%d", i)), nil, true)
			prev = d
		}
		for i := 1; i <= 300; i++ {
			link(i)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 301; i <= 400; i++ {
			link(i)
		}
		runtime.ReadMemStats(&after)
		// Copying 600-800 messages a call would be 24-32 KB of them alone.
		perCall := (after.TotalAlloc - before.TotalAlloc) / 100
		Expect(perCall).To(BeNumerically("<", 12<<10), "bytes allocated a call at 600-800 messages")
	})
})
