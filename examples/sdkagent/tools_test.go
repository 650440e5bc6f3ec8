package sdkagent_test

import (
	"github.com/agentsnap/agentsnap/examples/sdkagent"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the tools", func() {
	DescribeTable("calculator evaluates arithmetic, deterministically",
		func(expr, want string) {
			Expect(sdkagent.Calculate(expr)).To(Equal(want))
		},
		Entry("a product", "180 * 4", "720"),
		Entry("a fraction", "720 * 1.25", "900"),
		Entry("precedence and parentheses", "2 + 3 * (4 - 1)", "11"),
		Entry("a unary minus", "-3 + 1", "-2"),
		Entry("a division", "1200 / 3", "400"),
	)

	DescribeTable("calculator refuses what is not arithmetic, saying what it takes",
		func(expr, want string) {
			_, err := sdkagent.Calculate(expr)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a call", "os.Exit(1)", "only numbers, + - * / and parentheses"),
		Entry("a string", `"a" + "b"`, "is not a number"),
		Entry("a division by zero", "1 / (2 - 2)", "division by zero"),
		Entry("a broken expression", "2 +", "use numbers, + - * / and parentheses"),
	)

	It("weather reads a fixed table and names the known cities otherwise", func() {
		Expect(sdkagent.Weather("Oslo")).To(Equal("Oslo: snow, -3°C"))
		_, err := sdkagent.Weather("Atlantis")
		Expect(err).To(MatchError(`no forecast for "Atlantis"; known cities: Lisbon, Nairobi, Oslo, Zurich`))
	})
})
