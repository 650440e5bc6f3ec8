package jsonscan_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// nested is an object whose messages hold one element of n nested arrays.
func nested(n int) string {
	return `{"messages":[` + strings.Repeat("[", n) + strings.Repeat("]", n) + `]}`
}

var _ = Describe("ArrayMember and ArrayNext", func() {
	first := []byte(`{"model":"m","messages":[{"a":1}, {"b":2}],"stream":true}`)
	var at jsonscan.Spans
	BeforeEach(func() {
		var repeats, ok bool
		at, repeats, ok = jsonscan.ArrayMember(first, "messages", nil, jsonscan.Spans{}, nil)
		Expect(ok).To(BeTrue())
		Expect(repeats).To(BeFalse())
	})

	It("find the array's bounds and its elements", func() {
		Expect(string(first[at.Arr:at.End])).To(Equal(`[{"a":1}, {"b":2}]`))
		Expect(string(first[at.Arr:at.Last])).To(Equal(`[{"a":1}, {"b":2}`))
		Expect(at.Count).To(Equal(2))
	})

	It("list only the elements a body adds after another's, and tell whether the rest repeats it", func() {
		next := []byte(`{"model":"m","messages":[{"a":1}, {"b":2},{"c":3} ,{"d":4}],"stream":true}`)
		var added [][2]int
		got, same, ok := jsonscan.ArrayNext(next, "messages", first, at, &added)
		Expect(ok && same).To(BeTrue())
		Expect(got.Count).To(Equal(4))
		Expect([]string{string(next[added[0][0]:added[0][1]]), string(next[added[1][0]:added[1][1]])}).To(Equal([]string{`{"c":3}`, `{"d":4}`}))

		other := []byte(`{"model":"n","messages":[{"a":1}, {"b":2},{"c":3}],"stream":false}`)
		added = nil
		got, same, ok = jsonscan.ArrayNext(other, "messages", first, at, &added)
		Expect(ok).To(BeTrue(), "the array still begins with the first's elements")
		Expect(same).To(BeFalse(), "the bytes before and after the array changed")
		Expect(got.Count).To(Equal(3))
		Expect(added).To(HaveLen(1))

		after := []byte(`{"model":"m","messages":[{"a":1}, {"b":2},{"c":3}],"stream":false}`)
		added = nil
		_, same, ok = jsonscan.ArrayNext(after, "messages", first, at, &added)
		Expect(ok && !same).To(BeTrue(), "only the bytes after the array changed")
		Expect(added).To(HaveLen(1), "the elements listed once, not again by the second scan")

		_, _, ok = jsonscan.ArrayNext([]byte(`{"model":"m","messages":[{"a":1}],"stream":true}`), "messages", first, at, nil)
		Expect(ok).To(BeFalse(), "a body that drops the first's elements is not read against it")
	})

	It("read, with ArrayFrom, a body that changed some of the last elements in place from the first of them changed", func() {
		starts := []int{strings.Index(string(first), `{"a"`), strings.Index(string(first), `{"b"`)}
		next := []byte(`{"model":"m","messages":[{"a":1}, {"b":2,"x":0},{"c":3}],"stream":true}`)
		var added [][2]int
		got, from, same, ok := jsonscan.ArrayFrom(next, "messages", first, at, starts, &added)
		Expect(ok && same).To(BeTrue())
		Expect(from).To(Equal(1), "the second element changed")
		Expect(got.Count).To(Equal(3))
		Expect(string(next[got.Arr:got.End])).To(Equal(`[{"a":1}, {"b":2,"x":0},{"c":3}]`))
		Expect([]string{string(next[added[0][0]:added[0][1]]), string(next[added[1][0]:added[1][1]])}).To(Equal([]string{`{"b":2,"x":0}`, `{"c":3}`}))

		added = nil
		_, from, same, ok = jsonscan.ArrayFrom([]byte(`{"model":"m","messages":[{"a":0}, {"b":2}],"stream":false}`), "messages", first, at, starts, &added)
		Expect(ok && !same).To(BeTrue())
		Expect(from).To(BeZero())
		Expect(added).To(HaveLen(2))

		for _, body := range []string{
			`{"model":"m","messages":[{"a":1}],"stream":true}`,                        // fewer elements
			`{"model":"n","messages":[{"a":1}, {"b":3}],"stream":true}`,               // changed before the array
			`{"model":"m","messages":[{"a":1}, {"b":3}],"stream":true,"Messages":[]}`, // the member again after
			`{"model":"m","messages":[{"a":1}, {"b":3}],"stream":true} {}`,            // text after the object
			`{"model":"m","messages":[{"a":1}, {"b":3},],"stream":true}`,              // a trailing comma
		} {
			added = nil
			_, _, _, ok = jsonscan.ArrayFrom([]byte(body), "messages", first, at, starts, &added)
			Expect(ok).To(BeFalse(), body)
		}
		_, _, _, ok = jsonscan.ArrayFrom([]byte(`{"model":"m","messages":[{"a":0}, {"b":2}],"stream":true}`), "messages", first, at, starts[1:], &added)
		Expect(ok).To(BeFalse(), "an element changed before the first of starts")
	})

	DescribeTable("refuse a body encoding/json would read otherwise",
		func(body string) {
			_, _, ok := jsonscan.ArrayMember([]byte(body), "messages", nil, jsonscan.Spans{}, nil)
			Expect(ok).To(BeFalse())
		},
		Entry("the member twice", `{"messages":[],"messages":[]}`),
		Entry("the member in other case", `{"messages":[],"Messages":[]}`),
		Entry("the member in Unicode case", `{"meſſages":[]}`),
		Entry("an escaped name", `{"m\u0065ssages":[]}`),
		Entry("no member", `{"model":"m"}`),
		Entry("not an array", `{"messages":{}}`),
		Entry("a trailing comma in the array", `{"messages":[1,]}`),
		Entry("a trailing comma among the members", `{"messages":[],}`),
		Entry("text after the object", `{"messages":[]} x`),
		Entry("an element nested past encoding/json's limit in the body", nested(9999)),
	)

	It("accept an element nested as deep as encoding/json reads in the body", func() {
		Expect(json.Valid([]byte(nested(9998)))).To(BeTrue())
		Expect(json.Valid([]byte(nested(9999)))).To(BeFalse(), "the limit the entry above holds to")
		_, _, ok := jsonscan.ArrayMember([]byte(nested(9998)), "messages", nil, jsonscan.Spans{}, nil)
		Expect(ok).To(BeTrue())
	})
})
