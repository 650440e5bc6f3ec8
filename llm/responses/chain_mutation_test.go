package responses_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/responses"
)

var _ = Describe("a chained Responses request read against the last, a member between its input and previous_response_id changed", func() {
	// The rest of a chained body is compared in three runs: before, between
	// and after the input and previous_response_id values. An agent whose
	// SDK writes the model between them and switches models mid-chain must
	// be read with the new model.
	It("reads the new model, not the last request's", func() {
		s := responses.NewServed()
		first := decodeBoth(s, nil, []byte(`{"model":"gpt-x","input":"Which release?"}`))
		s.PutNext("resp_0", first, callAnswer("call_0"), nil, true)
		body := func(prev, call, model string) []byte {
			return []byte(`{"input":[` + output(call, "v") + `],"model":"` + model + `","previous_response_id":"` + prev + `"}`)
		}
		second := decodeBoth(s, first, body("resp_0", "call_0", "gpt-x"))
		s.PutNext("resp_1", second, callAnswer("call_1"), nil, true)
		third := decodeBoth(s, second, body("resp_1", "call_1", "gpt-y"))
		Expect(third.Decoded.Model).To(Equal("gpt-y"))
		Expect(third.SameRest).To(BeFalse())
	})
})
