package anthropic_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A conversation that brings an image with each call (a computer-use
// agent's screenshots) is read against the last request, and its images'
// blocks stay with it to the end of the conversation: a block that were a
// window of the body that brought it would hold that whole body — every
// image before it included — for as long, and the run would hold every
// such body.
var _ = Describe("the blocks of a conversation's images", func() {
	It("are copies of the image blocks, not windows of the request bodies that brought them", func() {
		image := func(i int) string {
			return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` +
				base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "screenshot %d", i)) + `"}}`
		}
		var msgs []string
		var bodies [][]byte
		var d *anthropic.Decoded
		for i := range 3 {
			if i > 0 {
				msgs = append(msgs, `{"role":"assistant","content":[{"type":"text","text":"Seen."}]}`)
			}
			msgs = append(msgs, `{"role":"user","content":[`+image(i)+`,{"type":"text","text":"And now?"}]}`)
			body := []byte(`{"model":"claude-x","max_tokens":64,"messages":[` + strings.Join(msgs, ",") + `]}`)
			var err error
			d, err = anthropic.DecodeNext(d, body)
			Expect(err).NotTo(HaveOccurred())
			bodies = append(bodies, body)
		}
		Expect(d.Reused).To(BeNumerically(">", 0), "read against the last request")
		var want []string
		for _, b := range d.Call.Media {
			want = append(want, string(b))
		}
		Expect(want).To(HaveLen(3))
		for _, body := range bodies[:2] { // the last is the Decoded's own
			copy(body, bytes.Repeat([]byte{' '}, len(body)))
		}
		for _, b := range d.Call.Media {
			Expect(want).To(ContainElement(string(b)), "a block changed with a body it came from")
		}
	})
})

// One image in a tool's result and again in the text after the results,
// each with its own breakpoint or none: the user's copy becomes a message
// after the results', and each goes back as it came.
var _ = Describe("one image in a tool's result and beside it", func() {
	It("reaches a live model twice, each copy where and as the agent sent it", func() {
		img := func(cc string) string {
			return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}` + cc + `}`
		}
		const cached = `,"cache_control":{"type":"ephemeral"}`
		messages := `[{"role":"user","content":[{"type":"text","text":"Look."}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"screenshot","input":{}}]},` +
			`{"role":"user","content":[` + img("") + `,{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"the screen:"},` + img(cached) + `]},` +
			`{"type":"text","text":"Same?"}]}]`
		for _, read := range []string{"whole", "against the last request"} {
			body := []byte(`{"model":"claude-x","max_tokens":64,"messages":` + messages + `}`)
			var call *anthropic.Call
			if read == "whole" {
				var err error
				call, err = anthropic.DecodeRequest(body)
				Expect(err).NotTo(HaveOccurred())
			} else {
				first, err := anthropic.DecodeNext(nil, []byte(`{"model":"claude-x","max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"Look."}]}]}`))
				Expect(err).NotTo(HaveOccurred())
				d, err := anthropic.DecodeNext(first, body)
				Expect(err).NotTo(HaveOccurred())
				Expect(d.Reused).To(Equal(1), read)
				call = d.Call
			}
			req := &llm.Request{Model: call.Model, Messages: call.Messages, API: anthropic.API, Settings: json.RawMessage(`{"max_tokens":64}`),
				Forward: &anthropic.Forward{Cache: call.Cache, Media: call.Media}}
			b, err := anthropic.Messages{}.Encode(req, call.Model)
			Expect(err).NotTo(HaveOccurred())
			var sent struct{ Messages []json.RawMessage }
			Expect(json.Unmarshal(b, &sent)).To(Succeed())
			Expect(sent.Messages).To(HaveLen(3), read)
			Expect(string(sent.Messages[2])).To(MatchJSON(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"the screen:"},`+
				img(cached)+`]},`+img("")+`,{"type":"text","text":"Same?"}]}`), read)
		}
	})
})
