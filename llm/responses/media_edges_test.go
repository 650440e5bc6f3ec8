package responses_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The blocks of a run's images are what a later request may need: those
// of a conversation a kept response answered, which a request continuing
// it by previous_response_id does not send again. A long run keeps those,
// each once, and no others.
var _ = Describe("the images and files of a long run", func() {
	const n = 50
	image := func(i int) string {
		return `{"type":"input_image","detail":"low","image_url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "pixel %d", i)) + `"}`
	}
	answer := session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart("A pixel.")}}

	It("are not kept once answered with store false: no later request can name them", func() {
		s := responses.NewServed()
		for i := range n {
			d, err := s.DecodeNext(nil, []byte(`{"model":"m","store":false,"input":[{"role":"user","content":[`+image(i)+`]}]}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Decoded.Forward()).NotTo(BeNil(), "the request's own image reaches the live model")
			s.PutNext(fmt.Sprintf("resp_%d", i), d, answer, nil, false)
			Expect(s.RetainedMedia()).To(BeZero(), "request %d", i)
		}
	})

	It("are kept each once along a previous_response_id chain, whose last call still sends the first image", func() {
		s := responses.NewServed()
		var prev *responses.Next
		for i := range n {
			body := `{"model":"m","input":[{"role":"user","content":[` + image(i) + `]}]}`
			if i > 0 {
				body = fmt.Sprintf(`{"model":"m","previous_response_id":"resp_%d","input":[{"role":"user","content":[%s]}]}`, i-1, image(i))
			}
			d, err := s.DecodeNext(prev, []byte(body))
			Expect(err).NotTo(HaveOccurred())
			s.PutNext(fmt.Sprintf("resp_%d", i), d, answer, nil, true)
			prev = d
		}
		Expect(s.RetainedMedia()).To(Equal(n))
		b, err := responses.Client{}.Encode(&llm.Request{Messages: prev.Decoded.Messages, API: responses.API, Forward: prev.Decoded.Forward()}, "m")
		Expect(err).NotTo(HaveOccurred())
		var got struct{ Input []json.RawMessage }
		Expect(json.Unmarshal(b, &got)).To(Succeed())
		Expect(got.Input).To(HaveLen(2*n - 1))
		Expect(string(got.Input[0])).To(MatchJSON(`{"type":"message","role":"user","content":[` + image(0) + `]}`))
		Expect(string(got.Input[2*n-2])).To(MatchJSON(`{"type":"message","role":"user","content":[` + image(n-1) + `]}`))
	})
})
