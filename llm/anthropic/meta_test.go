package anthropic_test

import (
	"bytes"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/anthropic"
)

var _ = Describe("a block's meta and a tool input, written by hand", func() {
	It("writes Meta as json.Marshal writes it, and MetaOf reads it back", func() {
		for _, m := range []anthropic.Meta{{Signature: "c2ln"}, {Data: "ZGF0YQ=="}, {Signature: "a<b>&c", Data: `q"\/<&>` + "\u2028"}, {Signature: "\xff\x00"}} {
			want, err := json.Marshal(map[string]anthropic.Meta{anthropic.API: m})
			Expect(err).NotTo(HaveOccurred())
			Expect(string(m.JSON())).To(Equal(string(want)), "%+v", m)
			var back map[string]anthropic.Meta // what encoding/json reads back
			Expect(json.Unmarshal(want, &back)).To(Succeed())
			Expect(anthropic.MetaOf(m.JSON())).To(Equal(back[anthropic.API]))
		}
		Expect(anthropic.Meta{}.JSON()).To(BeNil())
	})

	DescribeTable("compacts a tool input as json.Compact does, or leaves it when it is not JSON",
		func(raw string) {
			var b bytes.Buffer
			want := raw
			trimmed := bytes.TrimSpace([]byte(raw))
			if json.Compact(&b, trimmed) == nil {
				want = b.String()
			} else {
				want = string(trimmed)
			}
			Expect(anthropic.Compact(json.RawMessage(raw))).To(Equal(want))
		},
		Entry("compact already", `{"key":"release"}`),
		Entry("spaces between tokens", "{ \"key\" : [1, 2],\n\t\"b\": {} }"),
		Entry("spaces only in a string", `{"key":"a b"}`),
		Entry("space around", "  {\"a\":1}\n"),
		Entry("not JSON, no space", `{"a":}`),
		Entry("not JSON, with space", `{"a": }`),
		Entry("HTML and U+2028 kept", "{\"a\": \"<&>\u2028\"}"),
	)
})
