package wire

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// marshalSettings is what settings wrote before it wrote the object
// itself: json.Marshal of the members not known, then the encoding/json
// round trip (UseNumber, HTML escaping off).
func marshalSettings(members map[string]json.RawMessage, known ...string) (json.RawMessage, error) {
	rest := map[string]json.RawMessage{}
	for k, v := range members {
		rest[k] = v
	}
	for _, k := range known {
		delete(rest, k)
	}
	if len(rest) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

var _ = Describe("settings", func() {
	It("writes the bytes json.Marshal of the members and the round trip wrote", func() {
		values := []string{`1`, ` 1.50 `, `-0`, `1E5`, `true`, `null`, `"<&>"`, `"a\u2028b"`, "\"\xff\"", `"\ud800"`,
			`{"b":[1,{"d":2,"c":3}],"a":"x"}`, `{"a":1,"a":2}`, "[ {\"\\u0062\":1, \"a\" :2} ]", `{}`, `[]`}
		names := []string{"model", "messages", "tools", "stream", "temperature", "<&>", "b", "a", "é", "\u2028", "a\xff", "a\xfe", "a\uFFFD", "", "\\"}
		r := rand.New(rand.NewPCG(3, 4))
		for range 3000 {
			members := map[string]json.RawMessage{}
			for range r.IntN(6) {
				var v json.RawMessage
				if r.IntN(10) > 0 {
					v = json.RawMessage(values[r.IntN(len(values))])
				}
				members[names[r.IntN(len(names))]] = v
			}
			known := []string{"model", "messages", "tools", "stream"}[:r.IntN(5)]
			got, err := settings(members, known...)
			Expect(err).NotTo(HaveOccurred())
			want, err := marshalSettings(members, known...)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%q less %q", members, known)
			Expect(got == nil).To(Equal(want == nil))
		}
	})

	It("refuses a member that is not one JSON value, as json.Marshal did", func() {
		for _, v := range []string{``, `1 2`, `{"a":1} x`, `1,"b":2`} {
			members := map[string]json.RawMessage{"a": json.RawMessage(v)}
			_, err := settings(members)
			Expect(err).To(HaveOccurred(), "%q", v)
			_, err = marshalSettings(members)
			Expect(err).To(HaveOccurred(), "%q", v)
		}
	})
})
