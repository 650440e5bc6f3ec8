package anthropic_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

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
