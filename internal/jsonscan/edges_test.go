package jsonscan_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("edges encoding/json draws", func() {
	It("refuses every control character in a string, up to U+001F, as encoding/json does", func() {
		for _, text := range []string{"\"a\x1fb\"", "\"\x1f\"", "\"\x00\""} {
			Expect(json.Valid([]byte(text))).To(BeFalse())
			_, err := jsonscan.SkipValue([]byte(text), 0)
			Expect(err).To(MatchError(ContainSubstring("control character in string")), "%q", text)
		}
		_, err := jsonscan.SkipValue([]byte("\"a\x20b\""), 0)
		Expect(err).NotTo(HaveOccurred())
	})

	It("accepts objects nested exactly MaxDepth deep, in SkipValue, Object and AppendCanonical", func() {
		deep := strings.Repeat(`{"a":`, jsonscan.MaxDepth-1) + "{}" + strings.Repeat("}", jsonscan.MaxDepth-1)
		Expect(json.Valid([]byte(deep))).To(BeTrue())
		_, err := jsonscan.SkipValue([]byte(deep), 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(jsonscan.Object([]byte(deep), nil)).To(Succeed())
		_, err = jsonscan.AppendCanonical(nil, []byte(deep))
		Expect(err).NotTo(HaveOccurred())
	})

	It("counts a member value one level deeper with SkipMember, so its line stays within MaxDepth", func() {
		at := strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth)
		_, err := jsonscan.SkipValue([]byte(at), 0)
		Expect(err).NotTo(HaveOccurred())
		_, err = jsonscan.SkipMember([]byte(at), 0)
		Expect(err).To(MatchError(ContainSubstring("nesting deeper than 10000")))
		Expect(json.Valid([]byte(`{"m":` + at + `}`))).To(BeFalse())
		one := at[1 : len(at)-1]
		_, err = jsonscan.SkipMember([]byte(one), 0)
		Expect(err).NotTo(HaveOccurred())
	})

	It("pairs a high surrogate only with a following \\u escape, not with hex digits after another escape", func() {
		for _, text := range []string{`"\ud83d\\dc00"`, `"\ud83d\"dc00"`, `"\ud83d\/de00"`} {
			var want string
			Expect(json.Unmarshal([]byte(text), &want)).To(Succeed())
			Expect(want).To(HavePrefix("\uFFFD"))
			got, err := jsonscan.String([]byte(text))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want), "%s", text)
			canon, err := jsonscan.AppendCanonical(nil, []byte(text))
			Expect(err).NotTo(HaveOccurred())
			std, err := json.Marshal(want)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(canon)).To(Equal(strings.ReplaceAll(string(std), `\ufffd`, "\uFFFD")))
		}
	})
})
