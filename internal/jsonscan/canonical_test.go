package jsonscan_test

import (
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("AppendCanonical", func() {
	canon := func(text string) (string, error) {
		out, err := jsonscan.AppendCanonical([]byte("x"), []byte(text))
		Expect(string(out[:1])).To(Equal("x"))
		return string(out[1:]), err
	}

	DescribeTable("writes what the encoding/json round trip writes",
		func(text, want string) {
			got, err := canon(text)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
			std, err := stdCanonical([]byte(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(string(std)))
		},
		Entry("members in name order at every depth", `{"b":1,"a":{"d":[{"z":0,"y":1}],"c":2}}`, `{"a":{"c":2,"d":[{"y":1,"z":0}]},"b":1}`),
		Entry("the last of duplicate names", `{"a":1,"b":2,"a":3,"a":{"y":1,"x":2}}`, `{"a":{"x":2,"y":1},"b":2}`),
		Entry("names sorted as decoded, not as written", `{"\u0062":1,"a\"":2,"a":3,"a\\":4}`, `{"a":3,"a\"":2,"a\\":4,"b":1}`),
		Entry("a name written two ways is one name", `{"\u00e9":1,"é":2}`, `{"é":2}`),
		Entry("escapes as encoding/json writes them", `"\u0041\/\"\\\b\f\n\r\t\u0001\u001F\u007f<&>"`, "\"A/\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f<&>\""),
		Entry("U+2028 and U+2029 escaped, written raw or not", "\"\u2028\\u2029\"", `"\u2028\u2029"`),
		Entry("invalid UTF-8 decoded to U+FFFD", "\"a\xffb\xed\xa0\x80\"", "\"a\uFFFDb\uFFFD\uFFFD\uFFFD\""),
		Entry("lone surrogate escapes decoded to U+FFFD, pairs joined", `"\ud83d\ude00 \ud83d x \ude00 \ud800\ud800\udc00"`, "\"\U0001F600 \uFFFD x \uFFFD \uFFFD\U00010000\""),
		Entry("numbers as written", `[1E5, -0, 1.50, 0e-0, 123456789012345678901234567890]`, `[1E5,-0,1.50,0e-0,123456789012345678901234567890]`),
		Entry("literals", `[true,false,null]`, `[true,false,null]`),
		Entry("empty object and array", ` { } `, `{}`),
		Entry("empty array", `[ ]`, `[]`),
		Entry("space between and around tokens", " \t{ \"a\" :\n[ 1 , 2 ] ,\"b\":{ }}\r\n", `{"a":[1,2],"b":{}}`),
	)

	DescribeTable("errors, leaving dst as it was, where encoding/json errors",
		func(text string) {
			_, err := canon(text)
			var syn *jsonscan.SyntaxError
			Expect(errors.As(err, &syn)).To(BeTrue(), "%q: %v", text, err)
			_, err = stdCanonical([]byte(text))
			Expect(err).To(HaveOccurred())
		},
		Entry("blank", " \n"),
		Entry("broken", `{"a":[1,2}`),
		Entry("an object with data after it", `{"a":1} x`),
		Entry("a closing brace after the value", `{"a":1}}`),
		Entry("a second value", `1 2`),
		Entry("a string with a letter after it", `"s"x`),
		Entry("nesting deeper than encoding/json's limit", strings.Repeat("[", jsonscan.MaxDepth+1)+strings.Repeat("]", jsonscan.MaxDepth+1)),
		Entry("objects nested too deep", strings.Repeat(`{"a":`, jsonscan.MaxDepth+1)+"1"+strings.Repeat("}", jsonscan.MaxDepth+1)),
	)

	It("nests as deep as encoding/json does", func() {
		text := strings.Repeat(`{"b":0,"a":[`, jsonscan.MaxDepth/2) + strings.Repeat("]}", jsonscan.MaxDepth/2)
		got, err := canon(text)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(strings.Repeat(`{"a":[`, jsonscan.MaxDepth/2) + strings.Repeat(`],"b":0}`, jsonscan.MaxDepth/2)))
		std, err := stdCanonical([]byte(text))
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(string(std)))
	})

	It("agrees with encoding/json on every validity case and seed", func() {
		for _, text := range append(append([]string{}, validityCases...), canonicalSeeds...) {
			got, err := jsonscan.AppendCanonical(nil, []byte(text))
			want, wantErr := stdCanonical([]byte(text))
			Expect(err != nil).To(Equal(wantErr != nil), "%q: ours %v, encoding/json %v", text, err, wantErr)
			Expect(string(got)).To(Equal(string(want)), "%q", text)
		}
	})
})
