package scenario_test

import (
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("Validate bounds a scenario built in code", func() {
	It("refuses a negative turnTimeout, which no scenario.json can spell", func() {
		sc := &scenario.Scenario{Prompts: []string{"a"}, TurnTimeout: scenario.Duration(-time.Second)}
		Expect(sc.Validate()).To(MatchError(ContainSubstring("turnTimeout is -1s; use at most 1h0m0s")))
	})

	It("refuses a price that is not a number", func() {
		sc := &scenario.Scenario{Prompts: []string{"a"}, Prices: budget.Prices{"m": {Input: math.NaN()}}}
		Expect(sc.Validate()).To(MatchError(ContainSubstring("prices.m.input is NaN")))
	})
})
