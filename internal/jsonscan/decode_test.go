package jsonscan_test

import (
	"encoding/json"

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

var _ = Describe("Slice", func() {
	type item struct{ N string }
	read := func(b []byte, v *item) bool {
		return jsonscan.Fields(b, []string{"N"}, func(_ int, val []byte) bool { return jsonscan.StringField(val, &v.N) })
	}

	It("reads an array as encoding/json reads a slice: each element, a null one a zero value, [] not nil", func() {
		got, ok := jsonscan.Slice([]byte(`[{"N":"a"},null,{"N":"c"}]`), read)
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal([]item{{"a"}, {}, {"c"}}))
		got, ok = jsonscan.Slice([]byte(`[]`), read)
		Expect(ok).To(BeTrue())
		Expect(got).NotTo(BeNil())
		Expect(got).To(BeEmpty())
	})

	It("refuses what is not an array, and an element read refuses", func() {
		for _, val := range []string{`null`, `{}`, `[{"N":1}]`, `[{"n":"a"}]`} {
			_, ok := jsonscan.Slice([]byte(val), read)
			Expect(ok).To(BeFalse(), val)
		}
	})
})

var _ = Describe("Window", func() {
	It("is the value's bytes, which an append to it cannot write past", func() {
		b := []byte(`{"a":[1],"b":2}`)
		w := jsonscan.Window(b[5:8])
		Expect(string(w)).To(Equal("[1]"))
		_ = append(w, 'x')
		Expect(string(b)).To(Equal(`{"a":[1],"b":2}`))
	})
})

var _ = Describe("NamedSchema", func() {
	names := []string{"name", "description", "input_schema"}

	It("reads the name, the description and the schema as encoding/json does, skipping other members", func() {
		var name, desc string
		var schema json.RawMessage
		Expect(jsonscan.NamedSchema([]byte(`{"x":[1],"input_schema":{"type":"object"},"description":"look up","name":"lookup"}`), names, &name, &desc, &schema)).To(BeTrue())
		Expect([]string{name, desc, string(schema)}).To(Equal([]string{"lookup", "look up", `{"type":"object"}`}))
		var std struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"input_schema"`
		}
		Expect(json.Unmarshal([]byte(`{"x":[1],"input_schema":{"type":"object"},"description":"look up","name":"lookup"}`), &std)).To(Succeed())
		Expect([]string{std.Name, std.Description, string(std.Schema)}).To(Equal([]string{name, desc, string(schema)}))
	})

	It("refuses a name or a description that is no string", func() {
		var name, desc string
		var schema json.RawMessage
		Expect(jsonscan.NamedSchema([]byte(`{"name":1}`), names, &name, &desc, &schema)).To(BeFalse())
		Expect(jsonscan.NamedSchema([]byte(`{"description":{}}`), names, &name, &desc, &schema)).To(BeFalse())
	})
})
