package jsonscan_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("Decode", func() {
	type pair struct{ A, B string }
	// half fills A, then leaves the text to encoding/json unless it is
	// the one it reads.
	half := func(b []byte, v *pair) bool {
		v.A = "from the hand reader"
		return string(b) == `{"A":"from the hand reader"}`
	}

	It("takes what the hand reader read", func() {
		var v pair
		Expect(jsonscan.Decode([]byte(`{"A":"from the hand reader"}`), &v, half)).To(Succeed())
		Expect(v).To(Equal(pair{A: "from the hand reader"}))
	})

	It("reads what the hand reader leaves with encoding/json, from a zero value", func() {
		var v pair
		Expect(jsonscan.Decode([]byte(`{"B":"b"}`), &v, half)).To(Succeed())
		Expect(v).To(Equal(pair{B: "b"}), "nothing the hand reader left behind")
		Expect(jsonscan.Decode([]byte(`{"A":1}`), &v, half)).To(MatchError(ContainSubstring("cannot unmarshal number")))
	})
})
