package openai_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
)

var _ = Describe("two requests read against the same one", func() {
	It("leave each other's messages as read: the second does not grow the first's in place", func() {
		// Three messages, read into a slice with room for a fourth: each
		// request adds one.
		msgs := []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"yes?"}`, `{"role":"user","content":"wait"}`}
		prev, err := openai.DecodeNext(nil, chatBody(bodyHead, msgs, bodyTail))
		Expect(err).NotTo(HaveOccurred())
		bodies := [][]byte{
			chatBody(bodyHead, append(msgs[:3:3], `{"role":"assistant","content":"one"}`), bodyTail),
			chatBody(bodyHead, append(msgs[:3:3], `{"role":"assistant","content":"two"}`), bodyTail),
		}
		var got []*openai.Decoded
		for _, b := range bodies {
			d, err := openai.DecodeNext(prev, b)
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Reused).To(Equal(3))
			got = append(got, d)
		}
		for i, b := range bodies {
			want, err := openai.DecodeRequest(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[i].Call).To(Equal(want), "request %d", i+1)
		}
		Expect(prev.Call.Messages).To(HaveLen(3), "the one read against is unchanged")
	})
})
