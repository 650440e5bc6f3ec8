package ownloop_test

import (
	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the seed-slice guard", func() {
	// Its table holds the fixtures with a seeded fork child, found in the
	// recorded logs: re-recorded without one (a fork on a first turn, a
	// fork recorded as a spawn), a fixture would leave the table, and an
	// empty table passes. This keeps the guard from going quiet.
	It("runs on every fork fixture, each of which loads and holds a fork child with a seed", func() {
		var seeded []string
		for _, dir := range fixtures() {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred(), dir)
			for _, l := range fx.Logs {
				if seededFork(l) {
					seeded = append(seeded, fx.Name)
					break
				}
			}
		}
		Expect(seeded).To(ConsistOf("fork/budget-recall", "mixed/spawn-and-fork"))
	})
})
