package main

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A developer runs check, report and review with the real keys in the
// shell, and what they print goes to CI logs, pull request comments and
// HTML artifacts. An agent that now sends a key makes a drift, a log
// difference and a transcript diff that quote it.
var _ = Describe("check, report and review with a key of the shell in what they show", Label("secrets"), func() {
	// The "+" and "/" are escaped by the HTML page: only a redaction made
	// before the page is written finds the key.
	const key = "sk-shell+key/0123456789abcdefXYZ"
	environ := map[string]string{"OPENAI_API_KEY": key}

	// leakyTree copies fork/codeword with its first prompt holding the key:
	// the reference runtime sends it, so the replay drifts from the
	// recording and its transcript from the golden.
	leakyTree := func() string {
		root := fixtureCopy("fork/codeword")
		path := filepath.Join(root, "fixtures/fork/codeword", scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		b = bytes.Replace(b, []byte("the project codeword is MARMALADE."), []byte("the project codeword is MARMALADE and the key is "+key+"."), 1)
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
		return root
	}

	// expectRedacted fails when text holds the key or either half of it,
	// or does not show where it was.
	expectRedacted := func(text string) {
		GinkgoHelper()
		traces, err := leaktest.Traces(key, nil, text)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the key shows in:\n%s", text)
		Expect(text).To(ContainSubstring("the key is " + secret.Redacted))
	}

	It("check shows it as [REDACTED] in its table's problems", func() {
		r := cli(leakyTree(), environ, "check")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		Expect(r.stdout).To(ContainSubstring("request drift: root (root session), model call 1"))
		Expect(r.stdout).To(ContainSubstring("[diff -golden +replay]"))
		expectRedacted(r.stdout + r.stderr)
	})

	It("check --format json shows it as [REDACTED] in the first difference (the drift) and the problems", func() {
		r := cli(leakyTree(), environ, "check", "--format", "json")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		var v struct {
			Scenarios []struct {
				FirstDifference string   `json:"firstDifference"`
				Problems        []string `json:"problems"`
			} `json:"scenarios"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &v)).To(Succeed())
		Expect(v.Scenarios).To(HaveLen(1))
		first := v.Scenarios[0].FirstDifference
		Expect(first).To(HavePrefix("request drift: "))
		expectRedacted(first)
		expectRedacted(strings.Join(v.Scenarios[0].Problems, "\n"))
		expectRedacted(r.stdout + r.stderr)
	})

	It("check --format junit shows it as [REDACTED] in the failure's message", func() {
		r := cli(leakyTree(), environ, "check", "--format", "junit")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		var doc junitDoc
		Expect(decodeStrict(r.stdout, &doc)).To(Succeed())
		failure := doc.Suite.Case.Failure
		Expect(failure).NotTo(BeNil())
		Expect(failure.Message).To(HavePrefix("request drift: "))
		expectRedacted(failure.Message)
		expectRedacted(r.stdout + r.stderr)
	})

	DescribeTable("the HTML page shows it as [REDACTED] in the problems, the agent tree and the transcripts",
		func(args ...string) {
			root := leakyTree()
			r := cli(root, environ, args...)
			Expect(r.stderr).To(ContainSubstring("report: wrote out.html"))
			b, err := os.ReadFile(filepath.Join(root, "out.html"))
			Expect(err).NotTo(HaveOccurred())
			page := string(b)
			Expect(page).To(ContainSubstring("request drift: root (root session), model call 1"))
			traces, err := leaktest.Traces(key, nil, page, html.UnescapeString(page))
			Expect(err).NotTo(HaveOccurred())
			Expect(traces).To(BeEmpty(), "the key shows in the page")
			// The problems, the replay's user message in the tree and the
			// transcript's line each show it.
			Expect(strings.Count(html.UnescapeString(page), "the key is "+secret.Redacted)).To(BeNumerically(">=", 3))
		},
		Entry("agentsnap report", "report", "-o", "out.html"),
		Entry("agentsnap check --report", "check", "--report", "out.html"),
	)

	It("review shows it as [REDACTED] in a proposal's diff, as JSON, as Markdown and when it asks", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		b, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(string(b), "assistant: MARMALADE", "assistant: MARMALADE, and the key is "+key, 1)
		Expect(next).NotTo(Equal(string(b)))
		Expect(os.WriteFile(filepath.Join(dir, fixture.ProposalFile), []byte(next), 0o644)).To(Succeed())
		for _, format := range []string{"json", "markdown"} {
			r := cli(root, environ, "review", "--format", format)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			expectRedacted(r.stdout + r.stderr)
		}
		Expect(os.ReadFile(filepath.Join(dir, fixture.ProposalFile))).To(Equal([]byte(next)), "listing leaves the proposal as it is")

		GinkgoT().Setenv("CI", "") // review asks only outside CI
		r := reviewCLI(root, "s\n", environ, "review")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("skipped"))
		expectRedacted(r.stdout + r.stderr)
		Expect(os.ReadFile(filepath.Join(dir, fixture.ProposalFile))).To(Equal([]byte(next)), "skipped: the proposal stays as it is")
	})

	Describe("a proposal holding it, made by hand", func() {
		// leakyProposal writes fork/codeword's golden with the key on its
		// line 5 as the proposal, and returns the folder, the golden's
		// text and the proposal's.
		leakyProposal := func() (root, dir, golden, next string) {
			root = fixtureCopy("fork/codeword", "spawn/one-child")
			dir = filepath.Join(root, "fixtures/fork/codeword")
			golden = readFile(filepath.Join(dir, fixture.GoldenFile))
			lines := strings.SplitAfter(golden, "\n")
			Expect(len(lines)).To(BeNumerically(">", 5))
			lines[4] = "the key is " + key + "\n"
			next = strings.Join(lines, "")
			Expect(os.WriteFile(filepath.Join(dir, fixture.ProposalFile), []byte(next), 0o644)).To(Succeed())
			return root, dir, golden, next
		}
		// expectPending checks that the golden and the proposal are as they were.
		expectPending := func(dir, golden, next string) {
			GinkgoHelper()
			Expect(readFile(filepath.Join(dir, fixture.GoldenFile))).To(Equal(golden), "the golden is not replaced")
			Expect(readFile(filepath.Join(dir, fixture.ProposalFile))).To(Equal(next), "the proposal stays pending")
		}
		// why is the refusal of the proposal in dir, as review prints it.
		why := func(dir string) string {
			return "line 5 of " + filepath.Join(dir, fixture.ProposalFile) + " holds the value of OPENAI_API_KEY, a credential, and a golden is committed"
		}

		BeforeEach(func() {
			GinkgoT().Setenv("CI", "")
			GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		})

		DescribeTable("is never accepted: review names its line and variable, leaves it pending and exits 1",
			func(args ...string) {
				root, dir, golden, next := leakyProposal()
				r := cli(root, environ, append([]string{"review"}, args...)...)
				Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
				Expect(r.stdout + r.stderr).To(ContainSubstring("left pending fork/codeword: " + why(dir) + ": reject it (go tool agentsnap review --reject " + dir + ")"))
				Expect(r.stdout + r.stderr).NotTo(ContainSubstring("accepted fork/codeword"))
				traces, err := leaktest.Traces(key, nil, r.stdout+r.stderr)
				Expect(err).NotTo(HaveOccurred())
				Expect(traces).To(BeEmpty(), "the key shows in:\n%s", r.stdout+r.stderr)
				expectPending(dir, golden, next)
			},
			Entry("--accept", "--accept"),
			Entry("--accept --force", "--accept", "--force"),
			Entry("--accept --format markdown", "--accept", "--format", "markdown"),
		)

		It("is listed as not accepted, as JSON and as Markdown", func() {
			root, dir, golden, next := leakyProposal()
			r := cli(root, environ, "review", "--format", "json")
			Expect(r.code).To(Equal(exitOK), r.stderr)
			var props []struct{ Refused string }
			Expect(json.Unmarshal([]byte(r.stdout), &props)).To(Succeed())
			Expect(props).To(HaveLen(1))
			Expect(props[0].Refused).To(HavePrefix(why(dir)))
			r = cli(root, environ, "review", "--format", "markdown")
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stdout).To(ContainSubstring("> **Not accepted:** " + why(dir)))
			expectPending(dir, golden, next)
		})

		DescribeTable("is left pending when review asks, the others accepted",
			func(keys string) {
				root, dir, golden, next := leakyProposal()
				other, _, text := propose(root, "spawn/one-child", replace("Jupiter", "Saturn"))
				r := reviewCLI(root, keys, environ, "review", "--force")
				Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
				Expect(r.stdout).To(ContainSubstring("not accepted: " + why(dir)))
				Expect(r.stdout).To(ContainSubstring("left pending: " + why(dir)))
				Expect(r.stdout).To(ContainSubstring("review: 1 accepted, 0 rejected, 1 left pending\n1 proposal holding a key left pending"))
				expectRedacted(r.stdout + r.stderr)
				expectPending(dir, golden, next)
				Expect(readFile(other)).To(Equal(text), "the other proposal is accepted")
			},
			Entry("a for each", "a\na\n"),
			Entry("A: all remaining", "A\n"),
		)
	})
})
