package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap check, as a new user meets it", func() {
	BeforeEach(func() {
		// UpdateRefusal reads the process environment.
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("fails a fork child under spawn/, naming the category's rule", func() {
		root := fixtureCopy("spawn/codeword=fork/codeword", "spawn/one-child")
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/codeword\s+2\s+4\s+FAIL category$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+ok$`))
		var rule string
		for _, cr := range judge.CategoryRules {
			if cr.Category == "spawn" {
				rule = cr.Requires
			}
		}
		Expect(rule).NotTo(BeEmpty())
		Expect(r.stdout).To(ContainSubstring("category spawn:\n  a scenario in spawn/ needs " + rule + ", and this recording has not (2 sessions, 1 fork)"))
	})

	It("passes a custom category with the common checks only", func() {
		root := fixtureCopy("billing/refund-flow", "billing/codeword=fork/codeword")
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`(?m)^billing/codeword\s+2\s+4\s+ok$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^billing/refund-flow\s+2\s+4\s+ok$`))
	})

	It("says once that a child's header lost parentCallId, and prints the driver's note", func() {
		root := fixtureCopy("fork/codeword")
		replaceIn(filepath.Join(root, "fixtures/fork/codeword/session.1.jsonl"), `"parentCallId":"call_fork_1",`, "")
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL replay$`))
		Expect(strings.Count(r.stdout, `session 1 (fork of root via an unrecorded call): header parentCallId: golden (absent), replay "call_fork_1"`)).To(Equal(1))
		Expect(r.stdout).NotTo(ContainSubstring("never created"))
		Expect(r.stdout).NotTo(ContainSubstring("extra session"))
		Expect(strings.Count(r.stdout, "has no parentCallId (a dsh log?)")).To(Equal(1), "the note is printed once: in the failing scenario's report")
		Expect(r.stdout).To(MatchRegexp(`(?m)^replay notes:\n  fakellm: session root/#1 \(fork; session\.1\.jsonl\) has no parentCallId .*routed to it by first-call order`))
	})

	It("prints the warnings of a scenario that passes: a misspelt member, with the closest name", func() {
		root := fixtureCopy("fork/codeword")
		replaceIn(filepath.Join(root, "fixtures/fork/codeword/scenario.json"), `"maxDepth": 2`, `"maxDeph": 2`)
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`(?m)^note: fork/codeword: .*scenario\.json:\d+: unknown member "maxDeph" is kept but not used; did you mean "maxDepth"\?$`))
	})

	It("refuses a fork child whose seedLength lands inside a model call, naming file and seq", func() {
		root := fixtureCopy("fork/codeword")
		child := filepath.Join(root, "fixtures/fork/codeword/session.1.jsonl")
		replaceIn(child, `"seedLength":12`, `"seedLength":6`)
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+\d+\s+(ERROR|FAIL replay)$`))
		Expect(r.stdout).To(ContainSubstring(child + ":1: seedLength does not fall between turns: seedLength 6 ends the seed at seq 5 (assistant/chunk), not at a turn/end"))
	})

	It("ends a replay failure with the CLI command that re-records it", func() {
		root := fixtureCopy("spawn/one-child")
		dir := filepath.Join(root, "fixtures/spawn/one-child")
		replaceIn(filepath.Join(dir, "session.1.jsonl"), "largest", "smallest")
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(1))
		Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+FAIL replay$`))
		Expect(r.stdout).To(ContainSubstring("If the change is intended, re-record the scenario:\n  go tool agentsnap record " + dir + "\n"))
		Expect(r.stdout).NotTo(ContainSubstring("go test "), "the user is at the CLI, not in a test")
		Expect(r.stdout).NotTo(ContainSubstring("go tool ginkgo"))
	})

	It("lists scenarios in natural order, fan-out-2 before fan-out-10", func() {
		root := fixtureCopy("parallel/fan-out-10=parallel/fan-out", "parallel/fan-out-2=parallel/fan-out")
		r := cli(root, nil, "check", "fixtures")
		Expect(r.code).To(Equal(0), r.stdout)
		two, ten := strings.Index(r.stdout, "parallel/fan-out-2 "), strings.Index(r.stdout, "parallel/fan-out-10 ")
		Expect(two).To(BeNumerically(">=", 0))
		Expect(ten).To(BeNumerically(">", two))
		Expect(r.stdout).To(HaveSuffix("\n2 scenarios, 2 passed, 0 failed\n"))
	})

	It("counts one scenario in the singular", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "fixtures/spawn/one-child")
		Expect(r.code).To(Equal(0), r.stdout)
		Expect(r.stdout).To(HaveSuffix("\n1 scenario, 1 passed, 0 failed\n"))
	})

	Describe("--update", func() {
		var root, golden string
		var committed, changed []byte
		BeforeEach(func() {
			root = fixtureCopy("spawn/one-child")
			golden = filepath.Join(root, "fixtures/spawn/one-child", fixture.GoldenFile)
			var err error
			committed, err = os.ReadFile(golden)
			Expect(err).NotTo(HaveOccurred())
			replaceIn(golden, "Jupiter", "Saturn")
			changed, _ = os.ReadFile(golden)
		})

		It("rewrites a changed golden from a replay that matches", func() {
			r := cli(root, nil, "check", "--update", "fixtures")
			Expect(r.code).To(Equal(0), r.stdout+r.stderr)
			Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+ok, golden updated$`))
			Expect(os.ReadFile(golden)).To(Equal(committed))
		})

		It("leaves the golden alone when the replay does not match", func() {
			replaceIn(filepath.Join(root, "fixtures/spawn/one-child/session.1.jsonl"), "largest", "smallest")
			r := cli(root, nil, "check", "--update", "fixtures")
			Expect(r.code).To(Equal(1))
			Expect(r.stdout).To(MatchRegexp(`(?m)^spawn/one-child\s+2\s+3\s+FAIL replay$`))
			Expect(os.ReadFile(golden)).To(Equal(changed))
		})

		It("refuses under CI, golden untouched", func() {
			GinkgoT().Setenv("CI", "true")
			r := cli(root, nil, "check", "--update", "fixtures")
			Expect(r.code).To(Equal(1))
			Expect(r.stdout + r.stderr).To(ContainSubstring("refusing to update goldens with CI=true"))
			Expect(os.ReadFile(golden)).To(Equal(changed))
		})
	})
})
