package jsonscan_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("Fields", func() {
	names := []string{"name", "args"}
	read := func(b string) (map[int]string, bool) {
		got := map[int]string{}
		ok := jsonscan.Fields([]byte(b), names, func(k int, val []byte) bool {
			got[k] = string(val)
			return true
		})
		return got, ok
	}

	It("reads the fields it is given and skips the other members, as encoding/json fills a struct", func() {
		got, ok := read(` {"name":"f","other":{"x":[1]},"args":null} `)
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal(map[int]string{0: `"f"`, 1: `null`}))
	})

	DescribeTable("leaves to encoding/json a member it might read otherwise",
		func(b string) {
			_, ok := read(b)
			Expect(ok).To(BeFalse())
		},
		Entry("a field twice", `{"name":"f","name":"g"}`),
		Entry("a field in other case", `{"Name":"f"}`),
		Entry("a field in Unicode case", `{"argſ":1}`),
		Entry("a name not ASCII", `{"nämé":"f"}`),
		Entry("an escaped name", `{"n\u0061me":"f"}`),
		Entry("a trailing comma", `{"name":"f",}`),
		Entry("text after the object", `{"name":"f"} x`),
		Entry("not an object", `["name"]`),
		Entry("a value that is not JSON", `{"other":tru}`),
	)
})

var _ = Describe("Known", func() {
	names := []string{"name", "args"}
	type seen struct {
		k        int
		key, val string
	}

	It("gives every member in order, with its name's index in names or -1, refusing what Fields refuses", func() {
		var got []seen
		ok := jsonscan.Known([]byte(`{"x":1,"args":[2],"name":"f","x":3}`), names, func(k int, key, val []byte) bool {
			got = append(got, seen{k, string(key), string(val)})
			return true
		})
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal([]seen{{-1, "x", "1"}, {1, "args", "[2]"}, {0, "name", `"f"`}, {-1, "x", "3"}}))
		for _, b := range []string{`{"name":"f","name":"g"}`, `{"NAME":"f"}`, `{"argſ":1}`, `{"nämé":"f"}`, `{"n\u0061me":"f"}`} {
			Expect(jsonscan.Known([]byte(b), names, func(int, []byte, []byte) bool { return true })).To(BeFalse(), b)
		}
		Expect(jsonscan.Known([]byte(`{"name":"f"}`), names, func(int, []byte, []byte) bool { return false })).To(BeFalse(), "the member refused")
	})
})

var _ = Describe("StringField and BoolField", func() {
	DescribeTable("set a field as encoding/json does, null leaving it as it is",
		func(val, want string, ok bool) {
			got := "before"
			Expect(jsonscan.StringField([]byte(val), &got)).To(Equal(ok))
			if ok {
				Expect(got).To(Equal(want))
			}
		},
		Entry("a role", `"assistant"`, "assistant", true),
		Entry("a block type", `"tool_result"`, "tool_result", true),
		Entry("another string", `"lookup"`, "lookup", true),
		Entry("escapes", `"a\u00e9\n"`, "aé\n", true),
		Entry("an escaped role", `"\u0075ser"`, "user", true),
		Entry("null", `null`, "before", true),
		Entry("a number", `5`, "", false),
		Entry("an object", `{}`, "", false),
	)

	It("sets a pointer field as encoding/json does: null to nil, another value to a new one", func() {
		s, b := new(string), new(bool)
		Expect(jsonscan.PtrField([]byte(`"x"`), &s, jsonscan.StringField)).To(BeTrue())
		Expect(*s).To(Equal("x"))
		Expect(jsonscan.PtrField([]byte(`true`), &b, jsonscan.BoolField)).To(BeTrue())
		Expect(*b).To(BeTrue())
		Expect(jsonscan.PtrField([]byte(`null`), &s, jsonscan.StringField)).To(BeTrue())
		Expect(s).To(BeNil())
		Expect(jsonscan.PtrField([]byte(`5`), &b, jsonscan.BoolField)).To(BeFalse())
	})

	It("reads booleans and null", func() {
		b := true
		Expect(jsonscan.BoolField([]byte(`false`), &b)).To(BeTrue())
		Expect(b).To(BeFalse())
		Expect(jsonscan.BoolField([]byte(`null`), &b)).To(BeTrue())
		Expect(b).To(BeFalse())
		Expect(jsonscan.BoolField([]byte(`true`), &b)).To(BeTrue())
		Expect(b).To(BeTrue())
		Expect(jsonscan.BoolField([]byte(`"true"`), &b)).To(BeFalse())
	})
})

var _ = Describe("EachElement", func() {
	walk := func(val string, stopAt int) ([]string, bool) {
		var got []string
		ok := jsonscan.EachElement([]byte(val), func(e []byte) bool {
			got = append(got, string(e))
			return len(got) != stopAt
		})
		return got, ok
	}

	It("gives every element of an array in order", func() {
		got, ok := walk(`[1, {"a":[2]} ,"x",null]`, -1)
		Expect(ok).To(BeTrue())
		Expect(got).To(Equal([]string{"1", `{"a":[2]}`, `"x"`, "null"}))
		got, ok = walk(`[ ]`, -1)
		Expect(ok).To(BeTrue())
		Expect(got).To(BeEmpty())
	})

	It("refuses what is not one array, and stops where the walk says", func() {
		for _, val := range []string{`null`, `{}`, `"[1]"`, `[1,]`, `[1] x`, `[1 2]`, ``} {
			_, ok := walk(val, -1)
			Expect(ok).To(BeFalse(), val)
		}
		got, ok := walk(`[1,2,3]`, 2)
		Expect(ok).To(BeFalse())
		Expect(got).To(Equal([]string{"1", "2"}))
	})
})
