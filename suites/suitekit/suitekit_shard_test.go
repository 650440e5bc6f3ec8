package suitekit_test

import (
	"fmt"
	"slices"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// categories returns every category with fixtures, built-in or not.
func categories() []string {
	return append(slices.Clone(suitekit.Categories), suitekit.OtherCategories()...)
}

// inShard counts the fixtures of category in shard k of n.
func inShard(category string, k, n int) int {
	c := 0
	for _, d := range suitekit.Fixtures(category) {
		if fixture.InShard(harness.Name(d), k, n) {
			c++
		}
	}
	return c
}

var _ = Describe("AGENTSNAP_SHARD", func() {
	It("is unset: Entries holds every scenario of a category", func() {
		GinkgoT().Setenv(suitekit.ShardVar, "")
		for _, c := range suitekit.Categories {
			Expect(suitekit.Entries(c)).To(HaveLen(max(1, len(suitekit.Fixtures(c)))), c)
		}
	})

	It("splits Entries and OtherEntries by harness.InShard, the shards adding up to every scenario", func() {
		const n = 3
		total := map[string]int{}
		others := 0
		for k := 1; k <= n; k++ {
			GinkgoT().Setenv(suitekit.ShardVar, fmt.Sprintf("%d/%d", k, n))
			for _, c := range suitekit.Categories {
				got := suitekit.Entries(c)
				Expect(got).To(HaveLen(inShard(c, k, n)), "%s in shard %d/%d", c, k, n)
				total[c] += len(got)
			}
			want := 0
			for _, c := range suitekit.OtherCategories() {
				want += inShard(c, k, n)
			}
			Expect(suitekit.OtherEntries()).To(HaveLen(want))
			others += want
		}
		for _, c := range suitekit.Categories {
			Expect(total[c]).To(Equal(len(suitekit.Fixtures(c))), c)
		}
		all := 0
		for _, c := range suitekit.OtherCategories() {
			all += len(suitekit.Fixtures(c))
		}
		Expect(others).To(Equal(all))
	})

	It("gives a category with no scenario in the shard no entry, rather than the failing no-fixtures one", func() {
		const n = 1000
		for _, c := range categories() {
			if len(suitekit.Fixtures(c)) == 0 {
				continue
			}
			for k := 1; k <= n; k++ {
				if inShard(c, k, n) == 0 {
					GinkgoT().Setenv(suitekit.ShardVar, fmt.Sprintf("%d/%d", k, n))
					Expect(suitekit.Entries(c)).To(BeEmpty(), "%s in shard %d/%d", c, k, n)
					return
				}
			}
		}
		Fail("no category has an empty shard of 1000")
	})

	It("panics with the reason on a malformed value", func() {
		GinkgoT().Setenv(suitekit.ShardVar, "5/4")
		Expect(func() { suitekit.Entries("fork") }).To(PanicWith(ContainSubstring(`suitekit: AGENTSNAP_SHARD=5/4: harness: shard "5/4": K must be between 1 and N (4)`)))
		Expect(func() { suitekit.OtherEntries() }).To(PanicWith(ContainSubstring("AGENTSNAP_SHARD=5/4")))
	})
})
