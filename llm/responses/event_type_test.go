package responses_test

import (
	"strings"

	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Each event here comes as a data line alone, with no event line whose
// name would stand in for a type the decoder failed to read.
var _ = Describe("reading a stream event's type", func() {
	const hi = `{"type":"text-delta","index":0,"text":"hi"}`
	// afterMessage decodes a message item added, then data, then a
	// response.completed that says nothing more.
	afterMessage := func(data string) []session.Chunk {
		GinkgoHelper()
		return decode(bg(), "data: "+added(0, `{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`)+
			"\n\ndata: "+data+"\n\ndata: "+completed("null")+"\n\n")
	}

	DescribeTable("takes the top-level type member, as encoding/json does",
		func(data string, delta bool) {
			chunks := afterMessage(data)
			Expect(*last(chunks)).To(Equal(session.FinishReason{Kind: session.FinishStop}))
			if delta {
				Expect(jsonLines(chunks)).To(ContainElement(hi))
			} else {
				Expect(strings.Join(jsonLines(chunks), "\n")).NotTo(ContainSubstring(`"text":"hi"`))
			}
		},
		Entry("after the other members", `{"item_id":"msg_1","output_index":0,"delta":"hi","type":"response.output_text.delta"}`, true),
		Entry("spelled with escapes", `{"type":"response.output\u005ftext\u002E\u0064elta","item_id":"msg_1","delta":"hi"}`, true),
		Entry("after a nested object's type, which is not the event's",
			`{"annotation":{"type":"url_citation"},"logprobs":[{"type":"x"}],"type":"response.output_text.delta","item_id":"msg_1","delta":"hi"}`, true),
		Entry("not a nested object's type that comes first",
			`{"part":{"type":"response.output_text.delta"},"type":"response.output_text.done","item_id":"msg_1","delta":"hi"}`, false),
		// A repeated member's last value counts, as in json.Unmarshal:
		// the event's members are decoded by it.
		Entry("the last of a repeated type", `{"type":"response.output_text.done","item_id":"msg_1","delta":"hi","type":"response.output_text.delta"}`, true),
		Entry("not the first of a repeated type", `{"type":"response.output_text.delta","item_id":"msg_1","delta":"hi","type":"response.output_text.done"}`, false),
		Entry("named in other case", `{"TYPE":"response.output_text.delta","item_id":"msg_1","delta":"hi"}`, true),
		Entry("named with escapes", `{"typ\u0065":"response.output_text.delta","item_id":"msg_1","delta":"hi"}`, true),
	)

	DescribeTable("fails the call on a top-level error member that is not null, the last of repeated ones counting",
		func(data string, failed bool) {
			reason := last(afterMessage(data))
			if failed {
				Expect(*reason).To(Equal(session.FinishReason{Kind: session.FinishError, Failure: &session.Failure{Code: "SERVER",
					Message: "openai-responses: the provider sent an error in the stream: Boom."}}))
			} else {
				Expect(*reason).To(Equal(session.FinishReason{Kind: session.FinishStop}))
			}
		},
		Entry("after the type", `{"type":"response.in_progress","error":{"type":"server_error","message":"Boom."}}`, true),
		Entry("null", `{"type":"response.in_progress","error":null}`, false),
		Entry("nested in the response", `{"type":"response.in_progress","response":{"error":{"type":"server_error","message":"Boom."}}}`, false),
		Entry("the last of two", `{"error":null,"type":"response.in_progress","error":{"type":"server_error","message":"Boom."}}`, true),
		Entry("not the first of two", `{"error":{"type":"server_error","message":"Boom."},"type":"response.in_progress","error":null}`, false),
		Entry("named in other case", `{"type":"response.in_progress","Error":{"type":"server_error","message":"Boom."}}`, true),
	)

	It("ends with BAD_STREAM on a type that is no string, naming encoding/json's error", func(ctx SpecContext) {
		reason := last(afterMessage(`{"type":5}`))
		Expect(reason.Failure.Code).To(Equal("BAD_STREAM"))
		Expect(reason.Failure.Message).To(ContainSubstring("stream event 2 is not an event object (json: cannot unmarshal number into Go struct field .type of type string)"))
	})
})
