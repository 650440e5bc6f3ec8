package scenario_test

import (
	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("prices", func() {
	It("decodes prices per model and writes them back", func() {
		sc, err := scenario.Parse([]byte(`{"prompts": ["a"], "prices": {"gpt-4o-mini": {"input": 0.15, "output": 0.6, "cacheRead": 0.075}}}`), "x/scenario.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Prices).To(Equal(budget.Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.6, CacheRead: 0.075}}))
		Expect(sc.Extra).To(BeEmpty())
		b, err := sc.Encode()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(`"prices": {
    "gpt-4o-mini": {
      "input": 0.15,
      "output": 0.6,
      "cacheRead": 0.075
    }
  }`))
		again, err := scenario.Parse(b, "x/scenario.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Prices).To(Equal(sc.Prices))
	})

	DescribeTable("refuses a price that would cost wrongly, naming the line and the model",
		func(text, want string) {
			_, err := scenario.Parse([]byte(text), "x/scenario.json")
			Expect(err).To(MatchError(scenario.ErrInvalid))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a misspelled member", "{\"prompts\": [\"a\"],\n\"prices\": {\"m\": {\"input\": 1, \"cachedRead\": 0.5}}}",
			`line 2: prices: model "m": unknown member "cachedRead"; a price has input, output and cacheRead (per million tokens)`),
		Entry("a negative price", `{"prompts": ["a"], "prices": {"m": {"output": -2}}}`,
			`line 1: prices: model "m": output is -2; a price per million tokens is 0 or more`),
	)

	It("suggests prices for a near miss", func() {
		sc, err := scenario.Parse([]byte(`{"prompts": ["a"], "price": {}}`), "x/scenario.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Warnings).To(ConsistOf(`x/scenario.json:1: unknown member "price" is kept but not used; did you mean "prices"?`))
	})
})
