package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// scaleUsage multiplies every recorded token count of a fixture copy's
// logs by factor, rounding down, as a cheaper recording would show.
func scaleUsage(dir string, factor float64) {
	GinkgoHelper()
	re := regexp.MustCompile(`"(inputTokens|outputTokens)":(\d+)`)
	paths, err := filepath.Glob(filepath.Join(dir, "session*.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	Expect(paths).NotTo(BeEmpty())
	for _, p := range paths {
		b, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		out := re.ReplaceAllStringFunc(string(b), func(m string) string {
			parts := re.FindStringSubmatch(m)
			n, _ := strconv.Atoi(parts[2])
			return `"` + parts[1] + `":` + strconv.Itoa(int(float64(n)*factor))
		})
		Expect(os.WriteFile(p, []byte(out), 0o644)).To(Succeed())
	}
}

// addPrices adds a prices member to a fixture copy's scenario.json.
func addPrices(dir, prices string) {
	GinkgoHelper()
	path := filepath.Join(dir, scenario.File)
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	text := strings.Replace(string(b), `"maxDepth"`, `"prices": `+prices+`,
  "maxDepth"`, 1)
	Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
	_, err = scenario.Load(dir)
	Expect(err).NotTo(HaveOccurred())
}

const refund = "fixtures/billing/refund-flow"

var _ = Describe("agentsnap inspect usage", func() {
	It("shows each session's usage and a table of the tree", func() {
		r := cli(filepath.Join("..", ".."), nil, "inspect", refund)
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`
usage (tokens; no cost: the scenario.json beside the logs sets no prices):
  session          calls  input  cache read  output  reasoning  total
  root                 3    828           0     249          0   1077
  root/call_draft      1     83           0      38          0    121
  tree                 4    911           0     287          0   1198
`))
		Expect(r.stdout).To(ContainSubstring("\n  usage     3 model calls, 1077 tokens (828 input, 249 output)\n"))
		Expect(r.stdout).To(ContainSubstring("\n  usage     1 model call, 121 tokens (83 input, 38 output)\n"))
	})

	It("shows cost with the prices of the scenario.json beside the logs, for a folder and for one file", func() {
		root := fixtureCopy("billing/refund-flow")
		addPrices(filepath.Join(root, refund), `{"playbook": {"input": 0.15, "output": 0.6}}`)
		r := cli(root, nil, "inspect", refund)
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`
usage (tokens; cost per the scenario's prices):
  session          calls  input  cache read  output  reasoning  total        cost
  root                 3    828           0     249          0   1077   0.0002736
  root/call_draft      1     83           0      38          0    121  0.00003525
  tree                 4    911           0     287          0   1198  0.00030885
`))
		r = cli(root, nil, "inspect", refund+"/session.1.jsonl")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("\n  usage     1 model call, 121 tokens (83 input, 38 output), cost 0.00003525\n"))
	})

	It("says which model has no price, and counts calls without usage", func() {
		root := fixtureCopy("errors/throw-midway")
		dir := filepath.Join(root, "fixtures/errors/throw-midway")
		addPrices(dir, `{"gpt-4o-mini": {"input": 0.15, "output": 0.6}}`)
		r := cli(root, nil, "inspect", "fixtures/errors/throw-midway/session.jsonl")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring(`usage     2 model calls, 82 tokens (57 input, 25 output), 1 without usage, cost unknown (no price for "playbook")`))
	})

	It("shows a table for a tree even when scenario.json cannot be read, and says why there is no cost", func() {
		root := fixtureCopy("billing/refund-flow")
		Expect(os.WriteFile(filepath.Join(root, refund, scenario.File), []byte("{"), 0o644)).To(Succeed())
		r := cli(root, nil, "inspect", refund)
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("usage (tokens; no cost: the scenario.json beside the logs could not be read):\n"))
		Expect(r.stdout).To(MatchRegexp(`  tree                 4    911           0     287          0   1198\n  cost not shown: scenario: \S+scenario.json: invalid scenario: line 1: `))
	})

	// A log away from any scenario (a store's, a copy) has no prices to
	// read: the heading says there is no scenario.json, not that it sets none.
	It("says no scenario.json is beside a log that has none", func() {
		root := fixtureCopy("billing/refund-flow")
		Expect(os.Remove(filepath.Join(root, refund, scenario.File))).To(Succeed())
		r := cli(root, nil, "inspect", refund)
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("usage (tokens; no cost: no scenario.json beside the logs gives prices):\n"))
	})
})

var _ = Describe("agentsnap check --max-growth", func() {
	// work and base are two fixtures trees holding refund-flow; base's
	// recording is scaled by baseFactor.
	setup := func(baseFactor float64) (work, base string) {
		work = fixtureCopy("billing/refund-flow")
		base = fixtureCopy("billing/refund-flow")
		scaleUsage(filepath.Join(base, refund), baseFactor)
		return work, base
	}

	It("passes a scenario whose recording did not grow", func() {
		work, base := setup(1)
		r := cli(work, nil, "check", refund, "--max-growth", "0", "--baseline", base)
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
		Expect(r.stdout).To(MatchRegexp(`billing/refund-flow\s+2\s+4\s+ok\n`))
	})

	It("passes growth within the share and fails growth over it, with the sessions' totals", func() {
		work, base := setup(0.9)
		r := cli(work, nil, "check", refund, "--max-growth", "20%", "--baseline", base)
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)

		r = cli(work, nil, "check", refund, "--max-growth", "0.1", "--baseline", base)
		Expect(r.code).To(Equal(1), r.stdout+r.stderr)
		Expect(r.stdout).To(MatchRegexp(`billing/refund-flow\s+2\s+4\s+FAIL budget\n`))
		Expect(r.stdout).To(ContainSubstring("budget: the tree's tokens grew by 11.4% over the baseline (1075 -> 1198), more than --max-growth 0.1\n" +
			"  baseline: " + filepath.Join(base, refund) + "\n" +
			"  session          baseline tokens  now tokens\n" +
			"  root             967              1077\n" +
			"  root/call_draft  108              121\n" +
			"If the growth is intended, raise --max-growth for this change; the baseline moves once it is merged.\n"))
	})

	It("compares cost when the scenario has prices", func() {
		work, base := setup(1)
		addPrices(filepath.Join(work, refund), `{"playbook": {"input": 0.15, "output": 0.6}}`)
		replaceIn(filepath.Join(base, refund, "session.1.jsonl"), `"outputTokens":38`, `"outputTokens":0`) // the chunk
		replaceIn(filepath.Join(base, refund, "session.1.jsonl"), `"outputTokens":38`, `"outputTokens":0`) // the message
		r := cli(work, nil, "check", refund, "--max-growth", "0.05", "--baseline", base, "--format", "json")
		Expect(r.code).To(Equal(1), r.stdout+r.stderr)
		var out checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &out)).To(Succeed())
		Expect(out.Scenarios).To(HaveLen(1))
		s := out.Scenarios[0]
		Expect(s.Status).To(Equal("fail"))
		Expect(s.FirstDifference).To(Equal("budget: the tree's cost grew by 8.0% over the baseline (0.00028605 -> 0.00030885), more than --max-growth 0.05"))
		Expect(s.Fix).To(BeEmpty())
		Expect(s.Problems).To(ConsistOf(ContainSubstring("session          baseline cost  now cost")))
	})

	It("notes a scenario the baseline lacks and does not fail it", func() {
		work := fixtureCopy("billing/refund-flow")
		base := fixtureCopy("spawn/one-child")
		r := cli(work, nil, "check", refund, "--max-growth", "0.1", "--baseline", base)
		Expect(r.code).To(Equal(0), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring("note: billing/refund-flow: no scenario billing/refund-flow under the baseline " + base + " (a new scenario?); its growth is not checked"))
	})

	It("finds the baseline by CATEGORY/NAME when the paths differ", func() {
		work, base := setup(0.5)
		r := cli(work, nil, "check", refund, "--max-growth", "0.1", "--baseline", filepath.Join(base, "fixtures", "billing"))
		Expect(r.code).To(Equal(1), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring("budget: the tree's tokens grew by"))
	})

	DescribeTable("refuses flags that cannot work",
		func(args []string, want string) {
			work := fixtureCopy("billing/refund-flow")
			r := cli(work, nil, append([]string{"check", refund}, args...)...)
			Expect(r.code).To(Equal(2))
			Expect(r.stderr).To(HavePrefix("agentsnap check: " + want + "\nusage: agentsnap check "))
		},
		Entry("a share without a baseline", []string{"--max-growth", "0.2"},
			"--max-growth needs --baseline DIR, the fixtures to compare with: a checkout of the main branch (git worktree add ../base origin/main)"),
		Entry("a baseline without a share", []string{"--baseline", "."},
			"--baseline needs --max-growth SHARE, the growth allowed over it (0.2 or 20%)"),
		Entry("a negative share", []string{"--max-growth", "-0.1", "--baseline", "."},
			`--max-growth "-0.1": want a share from 0 to 100, such as 0.2 or 20%`),
		Entry("a baseline that is no folder", []string{"--max-growth", "0.1", "--baseline", "nowhere"},
			"--baseline nowhere is not a folder; give a checkout of the branch to compare with (git worktree add ../base origin/main) or its fixtures folder"),
	)

	It("documents the flags in its help", func() {
		r := cli("", nil, "help", "check")
		Expect(r.stdout).To(ContainSubstring("[--max-growth SHARE --baseline DIR]"))
		Expect(r.stdout).To(MatchRegexp(`--max-growth SHARE\s+fail a scenario whose cost, or tokens, grew by more\s+than SHARE`))
		Expect(r.stdout).To(ContainSubstring("git worktree add ../base origin/main"))
	})
})
