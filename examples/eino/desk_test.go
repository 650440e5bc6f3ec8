package eino_test

import (
	"context"

	"github.com/agentsnap/agentsnap/examples/eino/desk"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the desk", func() {
	It("looks books up in a fixed catalog and names the titles it has otherwise", func() {
		Expect(desk.Lookup("Dune")).To(Equal("Dune by Frank Herbert: 3 in stock, 12.50 EUR"))
		Expect(desk.Lookup(" Solaris ")).To(Equal("Solaris by Stanislaw Lem: 1 in stock, 9.90 EUR"))
		_, err := desk.Lookup("Atlantis")
		Expect(err).To(MatchError(`no book titled "Atlantis"; the catalog has Dune, Kindred, Piranesi, Solaris`))
	})

	It("needs a chat model, and says which", func() {
		_, err := desk.New(context.Background(), desk.Config{})
		Expect(err).To(MatchError(ContainSubstring("desk: Config.Model is required")))
	})
})

var _ = Describe("the desk's settings in scenario.json", func() {
	It("refuses a member it does not know, naming the ones it takes", func() {
		_, err := parseSettings([]byte(`{"shopp": "Folio Books"}`))
		Expect(err).To(MatchError(ContainSubstring(`eino: scenario.json agent: json: unknown field "shopp"; want {"shop": "...", "temperature": N}`)))
		s, err := parseSettings([]byte(`{"shop": "Folio Books", "temperature": 0.2}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Shop).To(Equal("Folio Books"))
		Expect(*s.Temperature).To(BeNumerically("~", 0.2, 1e-6))
	})
})
