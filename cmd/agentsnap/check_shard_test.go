package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// shardNames returns, per shard 1..n, the scenarios "check --shard K/N
// --format json" runs in root.
func shardNames(root string, n int) [][]string {
	GinkgoHelper()
	out := make([][]string, n)
	for k := 1; k <= n; k++ {
		r := cli(root, nil, "check", "fixtures", "--format", "json", "--shard", fmt.Sprintf("%d/%d", k, n))
		Expect(r.code).To(BeElementOf(exitOK, exitFail), r.stderr)
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
		out[k-1] = []string{}
		for _, s := range got.Scenarios {
			out[k-1] = append(out[k-1], s.Name)
		}
	}
	return out
}

// shardOf returns the shard (1-based) of each name in shards.
func shardOf(shards [][]string) map[string]int {
	out := map[string]int{}
	for k, names := range shards {
		for _, n := range names {
			Expect(out).NotTo(HaveKey(n), "%s is in shard %d and shard %d", n, out[n], k+1)
			out[n] = k + 1
		}
	}
	return out
}

var _ = Describe("sharding", func() {
	DescribeTable("ParseShard takes K/N with 1 <= K <= N",
		func(s string, k, n int) {
			gk, gn, err := fixture.ParseShard(s)
			Expect(err).NotTo(HaveOccurred())
			Expect([]int{gk, gn}).To(Equal([]int{k, n}))
		},
		Entry(nil, "1/1", 1, 1),
		Entry(nil, "2/4", 2, 4),
		Entry(nil, "4/4", 4, 4),
	)

	DescribeTable("ParseShard refuses anything else, saying why",
		func(s, want string) {
			_, _, err := fixture.ParseShard(s)
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(err).To(MatchError(ContainSubstring("want K/N, such as 1/4 (shard 1 of 4)")))
		},
		Entry(nil, "", `shard "": want K/N`),
		Entry(nil, "2", `shard "2": want K/N`),
		Entry(nil, "a/b", "K and N must be whole numbers"),
		Entry(nil, "1/0", "N must be at least 1"),
		Entry(nil, "0/3", "K must be between 1 and N (3)"),
		Entry(nil, "4/3", "K must be between 1 and N (3)"),
		Entry(nil, "-1/3", "K must be between 1 and N (3)"),
	)

	It("InShard puts every name in exactly one shard, spreads them, and moves none when names are added", func() {
		var names []string
		for i := range 300 {
			names = append(names, fmt.Sprintf("cat%d/scenario-%d", i%7, i))
		}
		for n := 1; n <= 6; n++ {
			sizes := make([]int, n)
			for _, name := range names {
				in := 0
				for k := 1; k <= n; k++ {
					if fixture.InShard(name, k, n) {
						in++
						sizes[k-1]++
					}
				}
				Expect(in).To(Equal(1), "%s with N=%d", name, n)
			}
			for k, size := range sizes {
				Expect(size).To(BeNumerically(">", 300/n/2), "shard %d/%d holds %d of 300", k+1, n, size)
			}
		}
		Expect(fixture.InShard("x/y", 0, 2)).To(BeFalse())
		Expect(fixture.InShard("x/y", 3, 2)).To(BeFalse())
		Expect(fixture.InShard("x/y", 1, 0)).To(BeFalse())
	})

	It("InShard is FNV-1a of CATEGORY/NAME mod N, as documented, so shards stay put across versions", func() {
		// fnv32a("fork/codeword") = 74496331, mod 4 = 3: shard 4 of 4.
		Expect(fixture.InShard("fork/codeword", 4, 4)).To(BeTrue())
		// fnv32a("spawn/one-child") = 2942761396, mod 4 = 0: shard 1 of 4.
		Expect(fixture.InShard("spawn/one-child", 1, 4)).To(BeTrue())
		// fnv32a("parallel/fan-out") = 3651524145, mod 4 = 1: shard 2 of 4.
		Expect(fixture.InShard("parallel/fan-out", 2, 4)).To(BeTrue())
	})
})

var _ = Describe("agentsnap check --shard", func() {
	names := []string{
		"errors/hang-timeout", "errors/throw-midway", "fork/after-tool-call", "fork/codeword",
		"mixed/fork-spawns-grandchild", "mixed/spawn-then-fork", "parallel/fan-out",
		"parallel/nested-fan-out", "spawn/one-child", "spawn/two-sequential",
	}

	It("splits the scenarios into disjoint shards that together are all of them, and adding one moves no other", func() {
		root := fixtureCopy(names...)
		const n = 3
		before := shardOf(shardNames(root, n))
		Expect(before).To(HaveLen(len(names)), "the union of the shards is every scenario")
		for name, k := range before {
			Expect(fixture.InShard(name, k, n)).To(BeTrue(), name)
		}

		By("adding a scenario")
		Expect(os.CopyFS(filepath.Join(root, "fixtures/spawn/one-child-again"), os.DirFS(filepath.Join(root, "fixtures/spawn/one-child")))).To(Succeed())
		after := shardOf(shardNames(root, n))
		Expect(after).To(HaveLen(len(names) + 1))
		Expect(after).To(HaveKey("spawn/one-child-again"))
		for name, k := range before {
			Expect(after[name]).To(Equal(k), "%s moved", name)
		}
	})

	It("keeps the table of the shard's scenarios and counts only them", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		r := cli(root, nil, "check", "--shard", "4/4")
		Expect(r.code).To(Equal(exitOK), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+ok$`))
		Expect(r.stdout).NotTo(ContainSubstring("spawn/one-child"))
		Expect(r.stdout).To(HaveSuffix("\n1 scenario, 1 passed, 0 failed\n"))
	})

	It("passes an empty shard and says so where the table would be, not an empty table", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, nil, "check", "--shard", "1/4")
		Expect(r.code).To(Equal(exitOK))
		Expect(r.stdout).To(Equal("nothing to check: shard 1/4 holds none of the 1 scenario (each scenario's shard is the hash of its CATEGORY/NAME)\n\n0 scenarios, 0 passed, 0 failed\n"))
		Expect(r.stderr).To(BeEmpty())
	})

	DescribeTable("refuses a bad shard as a usage error",
		func(value, want string) {
			r := cli(fixtureCopy("fork/codeword"), nil, "check", "--shard", value)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stdout).To(BeEmpty())
			Expect(r.stderr).To(HavePrefix("agentsnap check: --shard: " + want))
			Expect(r.stderr).To(ContainSubstring("\nusage: agentsnap check "))
		},
		Entry(nil, "0/2", `harness: shard "0/2": K must be between 1 and N (2)`),
		Entry(nil, "3/2", `harness: shard "3/2": K must be between 1 and N (2)`),
		Entry(nil, "2", `harness: shard "2": want K/N`),
		Entry(nil, "one/two", `harness: shard "one/two": K and N must be whole numbers`),
	)

	It("is listed by help check", func() {
		r := cli("", nil, "help", "check")
		Expect(r.code).To(Equal(exitOK))
		Expect(r.stdout).To(MatchRegexp(`(?m)^  --shard K/N +check only shard K/N`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^  --format text\|json\|junit +`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^  --report FILE +also write the HTML report`))
		Expect(r.stdout).To(ContainSubstring("FNV-1a hash of its\nCATEGORY/NAME, mod N, is K-1"))
	})
})
